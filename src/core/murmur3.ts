/** MurmurHash3_x86_32 (Appleby) on uint32 arithmetic: the hash of the LSH band keys and word keys (spec §9). */

export const C1 = 0xcc9e2d51;
export const C2 = 0x1b873593;

/** MurmurHash3's 32-bit finalizer (a bijection on uint32). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3_x86_32 of `bytes[start .. start+length)` with `seed`, as uint32. */
export function murmur3(bytes: Uint8Array, start: number, length: number, seed: number): number {
  let h = seed | 0;
  const end = start + (length & ~3);
  let p = start;
  for (; p < end; p += 4) {
    let k = bytes[p]! | (bytes[p + 1]! << 8) | (bytes[p + 2]! << 16) | (bytes[p + 3]! << 24);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = length & 3;
  if (tail !== 0) {
    let k = 0;
    if (tail === 3) k ^= bytes[p + 2]! << 16;
    if (tail >= 2) k ^= bytes[p + 1]! << 8;
    k ^= bytes[p]!;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  return fmix32(h ^ length);
}

