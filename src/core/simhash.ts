/**
 * Simhash (Charikar 2002) over weighted features, spec §6.
 *
 * Per feature f with weight w:
 *  - h = XXH64(UTF-8 bytes of f, seed 0), a 64-bit value split into halves
 *    (hi = bits 63..32, lo = bits 31..0);
 *  - q = floor(w * 2^24 + 0.5), the weight quantized to an integer so that the
 *    sums below are exact and do not depend on the order of the features
 *    (all sums stay far below 2^53);
 *  - for every bit i in 0..63: V[i] += q if bit i of h is 1, else V[i] -= q.
 * Bit i of the fingerprint is 1 iff V[i] > 0 (a tie, V[i] = 0, gives 0). No
 * features, or all weights quantizing to 0, give the all-zero fingerprint.
 *
 * The 128-bit option uses a second, independent hash per feature:
 * bits 127..64 from XXH64 seed 0 and bits 63..0 from XXH64 seed 1, same rule.
 *
 * Everything is int arithmetic on uint32 halves: no BigInt in the loop. The
 * 64-bit sums use nibble tables (`simhash-accumulator.ts`: 16 additions per
 * feature instead of 64); the 128-bit option keeps the plain per-bit loop.
 */
import xxhash from "xxhash-wasm";
import type { Fingerprint } from "./fingerprint.js";
import { toHex } from "./fingerprint.js";
import { accumulate, signBits, SimhashAccumulator } from "./simhash-accumulator.js";

/** Weight quantization scale: 2^24. */
export const WEIGHT_SCALE = 16_777_216;

/** A 128-bit fingerprint: `high` = bits 127..64, `low` = bits 63..0. */
export interface Fingerprint128 {
  readonly high: Fingerprint;
  readonly low: Fingerprint;
}

/** 32 lowercase hex characters, most significant first. */
export function toHex128(fp: Fingerprint128): string {
  return toHex(fp.high) + toHex(fp.low);
}

/** Synchronous 64-bit feature hash; created once by `createFeatureHasher`. */
export interface FeatureHasher {
  /** XXH64 of the feature's UTF-8 bytes with the given seed (0 or 1), as halves. */
  hash(feature: string, seed?: 0 | 1): Fingerprint;
  /** The same hash with seed 0, not memoized: for callers that keep their own cache (the bigram table). */
  hashUncached?(feature: string): Fingerprint;
}

/**
 * Bound on memoized feature hashes per seed; the cache is cleared when it
 * fills. Terms repeat heavily across documents, so a hit saves the WebAssembly
 * call and the hex parsing.
 */
const CACHE_LIMIT = 1 << 20;

/** Loads the XXH64 WebAssembly module once and returns a sync, memoizing hasher. */
export async function createFeatureHasher(): Promise<FeatureHasher> {
  const api = await xxhash();
  const caches = [new Map<string, Fingerprint>(), new Map<string, Fingerprint>()] as const;
  const seeds = [0n, 1n] as const;
  const compute = (feature: string, seed: 0 | 1): Fingerprint => {
    // The halves straight from the 64-bit value: half the time of formatting it as hex and parsing that back.
    const h = api.h64(feature, seeds[seed]);
    return { hi: Number(h >> 32n) >>> 0, lo: Number(BigInt.asUintN(32, h)) };
  };
  return {
    hashUncached: (feature) => compute(feature, 0),
    hash(feature: string, seed: 0 | 1 = 0): Fingerprint {
      const cache = caches[seed];
      let fp = cache.get(feature);
      if (fp === undefined) {
        fp = compute(feature, seed);
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(feature, fp);
      }
      return fp;
    },
  };
}

/** Weight quantization rule, `floor(w * 2^24 + 0.5)`; negative or non-finite weights count as 0. */
export function quantizeWeight(w: number): number {
  return w > 0 && Number.isFinite(w) ? Math.floor(w * WEIGHT_SCALE + 0.5) : 0;
}

/** 64-bit simhash of weighted features (term -> weight). */
export function simhash64(features: Iterable<readonly [string, number]>, hasher: FeatureHasher): Fingerprint {
  const acc = shared;
  acc.reset();
  const add = (w: number, f: string): void => {
    const q = quantizeWeight(w);
    if (q !== 0) {
      const h = hasher.hash(f, 0);
      acc.add(h.hi, h.lo, q);
    }
  };
  // Map.forEach avoids an [key, value] array per entry.
  if (features instanceof Map) (features as ReadonlyMap<string, number>).forEach(add);
  else for (const [f, w] of features) add(w, f);
  return acc.result();
}

/** 128-bit simhash: the 64-bit simhash (seed 0) as the high half, seed 1 as the low half. */
export function simhash128(features: Iterable<readonly [string, number]>, hasher: FeatureHasher): Fingerprint128 {
  const v = new Float64Array(128);
  let total = 0;
  for (const [f, w] of features) {
    const q = quantizeWeight(w);
    if (q === 0) continue;
    total += q;
    const a = hasher.hash(f, 0);
    const b = hasher.hash(f, 1);
    accumulate(v, 0, b.hi, b.lo, q);
    accumulate(v, 64, a.hi, a.lo, q);
  }
  return { high: { hi: signBits(v, 96, total), lo: signBits(v, 64, total) }, low: { hi: signBits(v, 32, total), lo: signBits(v, 0, total) } };
}

/** Scratch accumulator for `simhash64` (calls are synchronous and never nested). */
const shared = new SimhashAccumulator();
