/**
 * Seeded pseudo-random numbers for the quality data set: the same seed gives
 * the same pairs on every machine, so results are comparable across runs.
 * mulberry32: a 32-bit state, one multiply-xorshift round per draw.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform element of a non-empty array. */
  pick<T>(xs: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(xs: readonly T[]): T[];
}

export function createRng(seed: number): Rng {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    pick: (xs) => {
      if (xs.length === 0) throw new Error("rng.pick: empty array");
      return xs[int(xs.length)] as (typeof xs)[number];
    },
    shuffle: (xs) => {
      const out = xs.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        const tmp = out[i] as (typeof out)[number];
        out[i] = out[j] as (typeof out)[number];
        out[j] = tmp;
      }
      return out;
    },
  };
}
