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
 * Everything is int arithmetic on uint32 halves: no BigInt in the loop.
 */
import xxhash from "xxhash-wasm";
import type { Fingerprint } from "./fingerprint.js";
import { toHex } from "./fingerprint.js";

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
}

/** Bound on memoized feature hashes; the cache is cleared when it fills. */
const CACHE_LIMIT = 1 << 20;

/** Loads the XXH64 WebAssembly module once and returns a sync, memoizing hasher. */
export async function createFeatureHasher(): Promise<FeatureHasher> {
  const api = await xxhash();
  const caches = [new Map<string, Fingerprint>(), new Map<string, Fingerprint>()] as const;
  const seeds = [0n, 1n] as const;
  return {
    hash(feature: string, seed: 0 | 1 = 0): Fingerprint {
      const cache = caches[seed];
      let fp = cache.get(feature);
      if (fp === undefined) {
        // h64ToString gives 16 hex chars, zero-padded; parsing halves avoids BigInt.
        const hex = api.h64ToString(feature, seeds[seed]).padStart(16, "0");
        fp = { hi: parseInt(hex.slice(0, 8), 16) >>> 0, lo: parseInt(hex.slice(8), 16) >>> 0 };
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

/*
 * Implementation: V[i] = sum of +q over features with bit i set and -q over the
 * others = 2 * S[i] - Q, where S[i] sums q over features with bit i set and Q
 * sums all q. So bit i = 1 iff 2 * S[i] > Q. Accumulating S[i] += bit * q is
 * branch-free (hash bits are random, so a branch would mispredict half the time).
 */
function accumulate(s: Float64Array, offset: number, hi: number, lo: number, q: number): void {
  // s[offset + i] gets bit i of lo, s[offset + 32 + i] bit i of hi.
  for (let i = 0; i < 32; i++) {
    s[offset + i]! += ((lo >>> i) & 1) * q;
    s[offset + 32 + i]! += ((hi >>> i) & 1) * q;
  }
}

function signBits(s: Float64Array, offset: number, total: number): number {
  let x = 0;
  for (let i = 0; i < 32; i++) if (2 * s[offset + i]! > total) x |= 1 << i;
  return x >>> 0;
}

/** 64-bit simhash of weighted features (term -> weight). */
export function simhash64(features: Iterable<readonly [string, number]>, hasher: FeatureHasher): Fingerprint {
  // s[0..31] = bits 0..31 (lo half), s[32..63] = bits 32..63 (hi half).
  const s = new Float64Array(64);
  let total = 0;
  for (const [f, w] of features) {
    const q = quantizeWeight(w);
    if (q === 0) continue;
    total += q;
    const h = hasher.hash(f, 0);
    accumulate(s, 0, h.hi, h.lo, q);
  }
  return { hi: signBits(s, 32, total), lo: signBits(s, 0, total) };
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
