/**
 * The lengths a lookup may leave unread (core length-bounds.ts): outside
 * `candidateLengths`, no verdict rule other than the simhash rule (which needs
 * a shared segment) can hold, whatever the texts.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPairs, type Pair } from "../../../bench/quality/dataset.js";
import { loadChinese, loadEnglish } from "../../../bench/quality/sources.js";
import { candidateLengths, lengthAllowed, lengthBoundsOf, mergeLengthRanges, subtractLengthRanges, twoKeyLengths, type LengthRange } from "../../../src/core/length-bounds.js";
import { bucketFor, containmentApplies, DEFAULT_VERDICT_OPTIONS, editRuleApplies, lengthsAllow, type VerdictBucket, type VerdictOptions } from "../../../src/core/verdict.js";
import { sharedSegments } from "../../../src/service/candidates/query.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { analysedPairs, defaultFingerprinter } from "./helpers.js";

/** Whether some rule of the pair's bucket other than a simhash rule of at most 3 bits may hold at these lengths (the rules' own gates, verdict.ts). */
function someRuleMayHold(options: VerdictOptions, x: number, y: number): boolean {
  const shorter = Math.min(x, y);
  const longer = Math.max(x, y);
  const b = bucketFor(options, shorter);
  if (b.minCosine !== null) return true;
  if (b.maxDistance !== null && b.maxDistance > 3) return true;
  if (editRuleApplies(b, shorter, longer)) return true;
  if (b.minJaccard != null && lengthsAllow(shorter, longer, b.minJaccard)) return true;
  // The one-word rule's share is in code units, at most twice the code points of the shorter text.
  if (b.minWordShare != null && (longer === 0 || (2 * shorter) / longer >= b.minWordShare)) return true;
  if (containmentApplies(b, shorter, longer)) return true;
  return false;
}

const threshold = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null });
const bucketsArb = fc
  .array(
    fc.record({
      maxLength: fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.double({ min: 0.5, max: 3000, noNaN: true })),
      maxDistance: fc.option(fc.integer({ min: 0, max: 8 }), { nil: null }),
      minCosine: fc.option(fc.double({ min: 0.5, max: 1, noNaN: true }), { nil: null }),
      minEditSimilarity: threshold,
      minJaccard: threshold,
      minWordShare: threshold,
      minContainment: threshold,
      minContainedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((raw): VerdictOptions => {
    const sorted = [...new Set(raw.map((b) => b.maxLength))].sort((a, b) => a - b);
    const buckets: VerdictBucket[] = raw.slice(0, sorted.length).map((b, i) => ({ ...b, name: `b${i}`, searchRadius: 3, maxLength: i === sorted.length - 1 ? Infinity : sorted[i]! }));
    return { buckets };
  });

describe("candidateLengths", () => {
  it("leaves out only lengths at which no rule but a shared-segment simhash rule can hold (random bucket rules)", () => {
    fc.assert(
      fc.property(bucketsArb, fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 20_000 }), (options, length, other) => {
        const ranges = candidateLengths(options, length);
        if (!lengthAllowed(ranges, other)) expect(someRuleMayHold(options, length, other), JSON.stringify({ options, length, other, ranges })).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  it("under the default rules, at lengths next to the bounds", () => {
    for (let length = 0; length <= 8000; length += 7) {
      const ranges = candidateLengths(DEFAULT_VERDICT_OPTIONS, length);
      for (let other = 0; other <= 12_000; other += 1 + Math.floor(other / 50)) {
        if (!lengthAllowed(ranges, other)) expect(someRuleMayHold(DEFAULT_VERDICT_OPTIONS, length, other), `${length} / ${other}`).toBe(false);
      }
    }
  });

  it("gives the default rules' ranges (widened by one code point at each bound)", () => {
    // medium: the containment rule needs 0.7 of the longer (edit >= 0.85 and Jaccard >= 0.9 more); the short bucket's cosine rule takes any ratio.
    expect(candidateLengths(DEFAULT_VERDICT_OPTIONS, 300)).toEqual([
      [50, 199],
      [209, 429],
    ]);
    // tiny: Jaccard from 0.45 and the one-word rule from 0.6 of the longer in code units (0.3 in code points).
    expect(candidateLengths(DEFAULT_VERDICT_OPTIONS, 40)).toEqual([[11, 134]]);
    // short: the cosine rule holds at any ratio above the tiny bucket.
    expect(candidateLengths(DEFAULT_VERDICT_OPTIONS, 100)).toEqual([[29, Infinity]]);
    // long (containment from 0.7), then huge (cosine >= 0.8 at any ratio).
    expect(candidateLengths(DEFAULT_VERDICT_OPTIONS, 2000)).toEqual([
      [50, 199],
      [1399, 2858],
    ]);
    expect(candidateLengths(DEFAULT_VERDICT_OPTIONS, 6000)).toEqual([
      [50, 199],
      [4199, Infinity],
    ]);
  });

  it("is no bound when a rule holds at any ratio in every bucket", () => {
    const cosineEverywhere: VerdictOptions = { buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, minCosine: 0.9 })) };
    expect(candidateLengths(cosineEverywhere, 300)).toBeUndefined();
    const wideSimhash: VerdictOptions = { buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, maxDistance: 6 })) };
    expect(candidateLengths(wideSimhash, 300)).toBeUndefined();
  });

  it("merges ranges that overlap or touch", () => {
    expect(
      mergeLengthRanges([
        [10, 20],
        [0, 5],
        [21, 30],
        [40, Infinity],
        [35, 50],
      ]),
    ).toEqual([
      [0, 5],
      [10, 30],
      [35, Infinity],
    ]);
  });
});

const withoutContainment = (options: VerdictOptions): VerdictOptions => ({ ...options, buckets: options.buckets.map((b) => ({ ...b, minContainment: null, minContainedShare: null })) });

describe("twoKeyLengths", () => {
  it("is the part of candidateLengths that only the containment rule reaches (random bucket rules)", () => {
    fc.assert(
      fc.property(bucketsArb, fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 20_000 }), (options, length, other) => {
        const all = candidateLengths(options, length);
        const others = candidateLengths(withoutContainment(options), length);
        const two = twoKeyLengths(options, length);
        const inTwo = two !== undefined && lengthAllowed(two, other);
        const at = JSON.stringify({ options, length, other, all, others, two });
        if (inTwo) {
          expect(lengthAllowed(all, other), at).toBe(true);
          expect(lengthAllowed(others, other), at).toBe(false);
          expect(someRuleMayHold(withoutContainment(options), length, other), at).toBe(false);
        } else if (lengthAllowed(all, other)) expect(lengthAllowed(others, other), at).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("gives the default rules' ranges: where the containment rule reaches past the edit and Jaccard rules", () => {
    expect(twoKeyLengths(DEFAULT_VERDICT_OPTIONS, 300)).toEqual([
      [209, 253],
      [354, 429],
    ]);
    expect(twoKeyLengths(DEFAULT_VERDICT_OPTIONS, 6000)).toEqual([[4199, 4498]]);
    // Short texts: the cosine rule holds at any ratio, nothing to narrow.
    expect(twoKeyLengths(DEFAULT_VERDICT_OPTIONS, 100)).toBeUndefined();
    expect(twoKeyLengths(withoutContainment(DEFAULT_VERDICT_OPTIONS), 300)).toBeUndefined();
  });

  it("subtractLengthRanges leaves exactly the lengths of the first ranges in none of the second", () => {
    const rangesArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 20 }), fc.boolean()), { maxLength: 5 }).map((xs) => mergeLengthRanges(xs.map(([lo, w, open]): LengthRange => [lo, open ? Infinity : lo + w])));
    fc.assert(
      fc.property(rangesArb, rangesArb, (a, b) => {
        const out = subtractLengthRanges(a, b);
        for (let n = 0; n <= 100; n++) expect(lengthAllowed(out, n), `${n} ${JSON.stringify({ a, b, out })}`).toBe(lengthAllowed(a, n) && !lengthAllowed(b, n));
        for (const [lo, hi] of out) expect(lo <= hi && lo !== Infinity).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("lengthBoundsOf", () => {
  it("gives candidateLengths and twoKeyLengths of each length, frozen, the same object on a second call (random bucket rules)", () => {
    fc.assert(
      fc.property(bucketsArb, fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 20 }), (options, lengths) => {
        const bounds = lengthBoundsOf(options);
        for (const length of lengths) {
          const b = bounds(length);
          expect(b.lengths).toEqual(candidateLengths(options, length));
          expect(b.twoKeyLengths).toEqual(twoKeyLengths(options, length));
          expect(bounds(length)).toBe(b);
          expect(Object.isFrozen(b)).toBe(true);
          for (const ranges of [b.lengths, b.twoKeyLengths]) if (ranges) expect(Object.isFrozen(ranges) && ranges.every((r) => Object.isFrozen(r))).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("candidateLengths on the quality benchmark's pairs", () => {
  let fp: Fingerprinter;
  let pairs: Pair[];
  beforeAll(async () => {
    fp = await defaultFingerprinter();
    pairs = buildPairs([loadChinese(), loadEnglish()], 20260601);
  }, 120_000);

  it("every pair the rules call duplicate is within the other's lengths, or shares a segment", () => {
    let duplicates = 0;
    let outside = 0;
    for (const { pair: p, a, b } of analysedPairs(fp, pairs)) {
      const verdict = fp.compare(a, b);
      const reachable = lengthAllowed(candidateLengths(fp.verdictOptions, a.length), b.length) && lengthAllowed(candidateLengths(fp.verdictOptions, b.length), a.length);
      if (!reachable) outside++;
      if (!verdict.duplicate) continue;
      duplicates++;
      if (!reachable) expect(sharedSegments(a.simhash, b.simhash), `pair ${p.id} (${p.tier})`).toBeGreaterThan(0);
    }
    expect(duplicates).toBeGreaterThan(1000);
    // The bound does leave pairs out (the benchmark's negatives include texts of unlike lengths).
    expect(outside).toBeGreaterThan(0);
  });
});
