/**
 * 64-bit fingerprints as two uint32 halves.
 *
 * JavaScript numbers are exact only to 2^53 and BigInt arithmetic is two orders
 * of magnitude slower than int32 arithmetic, so a 64-bit simhash is carried as
 * `{ hi, lo }`: `hi` holds bits 63..32 and `lo` bits 31..0, both unsigned.
 * The canonical external form is 16 lowercase hex characters, most significant
 * first (`neardup.simhash` in the data contract).
 */
import { NeardupError } from "./errors.js";

export interface Fingerprint {
  /** Bits 63..32, unsigned 32-bit integer. */
  readonly hi: number;
  /** Bits 31..0, unsigned 32-bit integer. */
  readonly lo: number;
}

/** Number of 16-bit segments a 64-bit fingerprint is split into. */
export const SEGMENT_COUNT = 4;
/** Width of one segment in bits. */
export const SEGMENT_BITS = 16;

const HEX64 = /^[0-9a-f]{16}$/;
const HEX16 = /^[0-9a-f]{4}$/;

/** Population count of a 32-bit integer (SWAR, no loop over bits). */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Population count of a 64-bit value given as halves. SWAR as in `popcount32`,
 * but the halves are added once their 2-bit counts become 4-bit counts (each
 * at most 4 + 4 = 8, no overflow), so the byte folding and the multiply run once.
 */
export function popcount64(hi: number, lo: number): number {
  hi = hi - ((hi >>> 1) & 0x55555555);
  hi = (hi & 0x33333333) + ((hi >>> 2) & 0x33333333);
  lo = lo - ((lo >>> 1) & 0x55555555);
  lo = (lo & 0x33333333) + ((lo >>> 2) & 0x33333333);
  let x = hi + lo;
  x = (x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f);
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Hamming distance between two fingerprints: popcount(a XOR b), 0..64. */
export function hamming(a: Fingerprint, b: Fingerprint): number {
  return popcount64(a.hi ^ b.hi, a.lo ^ b.lo);
}

/** Hamming distance on raw halves, for hot loops over typed arrays. */
export function hammingHalves(aHi: number, aLo: number, bHi: number, bLo: number): number {
  return popcount64(aHi ^ bHi, aLo ^ bLo);
}

/**
 * Hamming distances from one fingerprint (`hi`, `lo`) to each of `out.length`
 * fingerprints stored interleaved in `table` as [hi0, lo0, hi1, lo1, ...] (the
 * layout of the embedded index): `out[i]` = distance to fingerprint i. A tight
 * loop over typed arrays, no allocation; about 3 ns per comparison on one core.
 */
export function hammingDistances(table: Uint32Array, hi: number, lo: number, out: Uint8Array): void {
  const n = Math.min(out.length, table.length >>> 1);
  for (let i = 0, j = 0; i < n; i++, j += 2) out[i] = popcount64(table[j]! ^ hi, table[j + 1]! ^ lo);
}

function hex8(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}

/** 16 lowercase hex characters, most significant bit first. */
export function toHex(fp: Fingerprint): string {
  return hex8(fp.hi) + hex8(fp.lo);
}

/** Parses 16 lowercase or uppercase hex characters; throws INVALID_INPUT otherwise. */
export function fromHex(hex: string, field = "simhash"): Fingerprint {
  const h = typeof hex === "string" ? hex.toLowerCase() : "";
  if (!HEX64.test(h)) {
    throw new NeardupError("INVALID_INPUT", `${field} must be 16 hex characters, got ${JSON.stringify(hex)}`, { field });
  }
  return { hi: parseInt(h.slice(0, 8), 16) >>> 0, lo: parseInt(h.slice(8), 16) >>> 0 };
}

/**
 * The four 16-bit segments as integers, seg0 = bits 63..48 (most significant),
 * seg3 = bits 15..0.
 */
export function segmentValues(fp: Fingerprint): [number, number, number, number] {
  return [fp.hi >>> 16, fp.hi & 0xffff, fp.lo >>> 16, fp.lo & 0xffff];
}

/** The four segments as 4-char lowercase hex keywords (`neardup.seg0`..`seg3`). */
export function segments(fp: Fingerprint): [string, string, string, string] {
  const s = segmentValues(fp);
  return [hex4(s[0]), hex4(s[1]), hex4(s[2]), hex4(s[3])];
}

export function hex4(x: number): string {
  return x.toString(16).padStart(4, "0");
}

/** Joins four 4-char hex segments back into a fingerprint. */
export function joinSegments(segs: readonly string[]): Fingerprint {
  if (segs.length !== SEGMENT_COUNT || !segs.every((s) => HEX16.test(s))) {
    throw new NeardupError("INVALID_INPUT", `segments must be four 4-char lowercase hex strings, got ${JSON.stringify(segs)}`, {
      field: "segments",
    });
  }
  return fromHex(segs.join(""));
}
