/**
 * The simhash sums of spec §6, computed with 16 additions per feature instead of 64.
 *
 * The spec's rule: bit i of the fingerprint is 1 iff V[i] > 0, where
 * V[i] = sum of +q over features with bit i of their hash set and -q over the
 * others. Writing S[i] for the sum of q over features with bit i set and Q for
 * the sum of all q, V[i] = 2 S[i] - Q, so bit i = 1 iff 2 S[i] > Q.
 *
 * Nibble tables: split each 64-bit hash into 16 nibbles (4-bit groups) and keep,
 * for every nibble position p and nibble value v, T[p][v] = sum of q over the
 * features whose nibble p equals v. A feature then costs 16 additions (one per
 * nibble), not 64. At the end S[4p + j] = sum of T[p][v] over the 8 values v
 * with bit j set: 16 x 4 x 8 = 512 additions per document, independent of the
 * number of features.
 *
 * Exactness: every q is an integer (the quantized weight), and every partial
 * sum is at most Q; while Q < 2^53 all of them are exact in float64, so the
 * grouping above gives the same S[i] as the feature-by-feature sum. For
 * absurd weights (Q >= 2^53) the sums are no longer exact and their value
 * depends on the order of additions, so the accumulator keeps the features it
 * was given and replays them through the original per-bit loop in the given
 * order: the result is then bit-identical to the reference implementation too.
 */
import type { Fingerprint } from "./fingerprint.js";

/** Largest total weight for which float64 sums of integer weights are exact. */
const EXACT_LIMIT = 2 ** 53;

/**
 * Reference accumulation (the spec's loop, branch-free): `s[offset + i]` gets
 * q when bit i of `lo` is set, `s[offset + 32 + i]` when bit i of `hi` is.
 */
export function accumulate(s: Float64Array, offset: number, hi: number, lo: number, q: number): void {
  for (let i = 0; i < 32; i++) {
    s[offset + i]! += ((lo >>> i) & 1) * q;
    s[offset + 32 + i]! += ((hi >>> i) & 1) * q;
  }
}

/** The 32 fingerprint bits from per-bit sums `s[offset..offset+31]`: bit i = 2 S[i] > total. */
export function signBits(s: Float64Array, offset: number, total: number): number {
  let x = 0;
  for (let i = 0; i < 32; i++) if (2 * s[offset + i]! > total) x |= 1 << i;
  return x >>> 0;
}

/** Accumulates weighted feature hashes into a 64-bit simhash; reusable via `reset`. */
export class SimhashAccumulator {
  /** T[p][v] at index 16 p + v; p = 0..7 are the nibbles of `lo`, 8..15 those of `hi`. */
  private readonly nibbles = new Float64Array(256);
  /** The features added since `reset`, in order (for the inexact-sum replay). */
  private his = new Uint32Array(1024);
  private los = new Uint32Array(1024);
  private qs = new Float64Array(1024);
  private count = 0;
  private total = 0;

  reset(): void {
    this.nibbles.fill(0);
    this.count = 0;
    this.total = 0;
  }

  /** Adds one feature: hash halves `hi` (bits 63..32) and `lo` (bits 31..0), quantized weight `q` > 0. */
  add(hi: number, lo: number, q: number): void {
    const t = this.nibbles;
    for (let p = 0; p < 8; p++) {
      t[16 * p + ((lo >>> (4 * p)) & 15)]! += q;
      t[128 + 16 * p + ((hi >>> (4 * p)) & 15)]! += q;
    }
    this.total += q;
    const n = this.count++;
    if (n === this.qs.length) this.grow();
    this.his[n] = hi;
    this.los[n] = lo;
    this.qs[n] = q;
  }

  /** The fingerprint of the features added since `reset` (all zero when there are none). */
  result(): Fingerprint {
    if (this.total >= EXACT_LIMIT) return this.replay();
    return { hi: this.half(128), lo: this.half(0) };
  }

  /** 32 fingerprint bits from the nibble tables starting at `base` (0: lo, 128: hi). */
  private half(base: number): number {
    const t = this.nibbles;
    const total = this.total;
    let x = 0;
    for (let p = 0; p < 8; p++) {
      const o = base + 16 * p;
      for (let j = 0; j < 4; j++) {
        const bit = 1 << j;
        let s = 0;
        for (let v = bit; v < 16; v++) if ((v & bit) !== 0) s += t[o + v]!;
        if (2 * s > total) x |= 1 << (4 * p + j);
      }
    }
    return x >>> 0;
  }

  /** The reference per-bit loop over the recorded features, in their order. */
  private replay(): Fingerprint {
    const s = new Float64Array(64);
    let total = 0;
    for (let k = 0; k < this.count; k++) {
      total += this.qs[k]!;
      accumulate(s, 0, this.his[k]!, this.los[k]!, this.qs[k]!);
    }
    return { hi: signBits(s, 32, total), lo: signBits(s, 0, total) };
  }

  private grow(): void {
    const n = this.qs.length * 2;
    const his = new Uint32Array(n);
    const los = new Uint32Array(n);
    const qs = new Float64Array(n);
    his.set(this.his);
    los.set(this.los);
    qs.set(this.qs);
    this.his = his;
    this.los = los;
    this.qs = qs;
  }
}
