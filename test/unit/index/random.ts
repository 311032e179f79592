// Seeded random fingerprints and planted near-duplicates for index tests.
import type { Fingerprint } from "../../../src/core/fingerprint.js";

/** mulberry32: a small seeded PRNG returning uint32. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

export function randomFingerprint(next: () => number): Fingerprint {
  return { hi: next(), lo: next() };
}

/** `fp` with `bits` distinct random bits flipped. */
export function flipBits(fp: Fingerprint, bits: number, next: () => number): Fingerprint {
  const chosen = new Set<number>();
  while (chosen.size < bits) chosen.add(next() % 64);
  let { hi, lo } = fp;
  for (const b of chosen) {
    if (b < 32) lo = (lo ^ (1 << b)) >>> 0;
    else hi = (hi ^ (1 << (b - 32))) >>> 0;
  }
  return { hi, lo };
}

/** Hamming distance bit by bit: the naive reference. */
export function naiveDistance(a: Fingerprint, b: Fingerprint): number {
  let d = 0;
  for (let i = 0; i < 32; i++) {
    if (((a.hi >>> i) & 1) !== ((b.hi >>> i) & 1)) d++;
    if (((a.lo >>> i) & 1) !== ((b.lo >>> i) & 1)) d++;
  }
  return d;
}

export interface ModelEntry {
  id: string;
  fp: Fingerprint;
  time: number;
}

/** Brute force over a plain list: ids within `radius`, sorted like SegmentIndex.lookup (distance, then insertion order). */
export function bruteForce(entries: readonly ModelEntry[], q: Fingerprint, radius: number): Array<[string, number]> {
  return entries
    .map((e, i) => ({ id: e.id, d: naiveDistance(e.fp, q), i }))
    .filter((x) => x.d <= radius)
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map((x) => [x.id, x.d]);
}
