/**
 * Segment neighbours for radii above 3.
 *
 * Pigeonhole: if two 64-bit fingerprints differ in at most r bits, then at
 * least one of their four 16-bit segments differs in at most floor(r / 4) bits
 * (four segments each differing in more than floor(r / 4) bits would add up
 * to at least 4 * (floor(r / 4) + 1) > r). So probing, in every table, each
 * bucket whose key is within floor(r / 4) bits of the query's segment finds
 * every candidate. For r <= 3 that is the exact bucket alone.
 */
import { popcount32 } from "../core/fingerprint.js";

const cache = new Map<number, Uint16Array>();

/**
 * All 16-bit masks with at most `bits` bits set, 0 first, then by popcount.
 * XOR a segment value with each mask to enumerate its neighbours.
 * Counts: 1, 17, 137, 697, 2517 for bits = 0..4.
 */
export function segmentMasks(bits: number): Uint16Array {
  const k = Math.max(0, Math.min(16, Math.floor(bits)));
  let masks = cache.get(k);
  if (masks === undefined) {
    const list: number[] = [];
    for (let m = 0; m < 0x10000; m++) if (popcount32(m) <= k) list.push(m);
    list.sort((a, b) => popcount32(a) - popcount32(b) || a - b);
    masks = Uint16Array.from(list);
    cache.set(k, masks);
  }
  return masks;
}

/** Bits a segment may differ by and still be probed for a lookup at `radius`. */
export function segmentSlack(radius: number): number {
  return Math.floor(radius / 4);
}
