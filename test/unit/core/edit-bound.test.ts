/** Issue 15: the linear edit-distance bound /v1/compare uses beyond its budget never exceeds the exact distance. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { characterDistanceLowerBound, editDistanceLowerBound, editSimilarity, editSimilarityMayReach, editSimilarityUpperBound, levenshtein } from "../../../src/core/similarity/index.js";
import { setJaccard, trigramJaccardRange, trigramSet } from "../../../src/core/similarity/spread.js";
import { mapCountingBound } from "../../../bench/edit-bound.js";

const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "长", "文", "😀", " "), maxLength: 40 });

describe("editDistanceLowerBound (issue 15)", () => {
  it("is at most the exact Levenshtein distance, and 0 only for equal texts", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const bound = editDistanceLowerBound(a, b);
        expect(bound).toBeLessThanOrEqual(levenshtein(a, b));
        expect(bound >= 0).toBe(true);
        if (a === b) expect(bound).toBe(0);
      }),
      { numRuns: 2000 },
    );
  });
  it("gives an upper bound on edit similarity in [0, 1]", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const up = editSimilarityUpperBound(a, b);
        expect(up).toBeGreaterThanOrEqual(editSimilarity(a, b) - 1e-12);
        expect(up).toBeLessThanOrEqual(1);
        expect(up).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });
  it("is tight on simple cases: one substitution in the middle is at least 1, length differences count", () => {
    expect(editDistanceLowerBound("abcdef", "abXdef")).toBe(1);
    expect(editDistanceLowerBound("abc", "abcdefgh")).toBe(5);
    expect(editDistanceLowerBound("", "😀😀")).toBe(2);
  });
});

describe("editDistanceLowerBound on sorted bigrams (issue 10)", () => {
  it("equals the Map-counting bound, lone surrogates and astral characters included (property)", () => {
    const unit = fc.constantFrom("a", "b", "长", "文", "😀", "\ud800", "\udc00", " ");
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), fc.string({ unit, maxLength: 60 }), (a, b) => {
        expect(editDistanceLowerBound(a, b)).toBe(mapCountingBound(a, b));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("the re-rank's memo of its first text (issue 10)", () => {
  const text = fc.string({ unit: fc.constantFrom(..."天地玄黄宇宙洪荒 ab"), maxLength: 40 });

  it("editDistanceLowerBound gives the same value for one first text against many second texts, in any order (property)", () => {
    fc.assert(
      fc.property(text, fc.array(text, { minLength: 1, maxLength: 6 }), (a, others) => {
        const together = others.map((b) => editDistanceLowerBound(a, b));
        const apart = others.map((b) => {
          editDistanceLowerBound(b, a); // another first text in between
          return editDistanceLowerBound(a.slice() + "", b);
        });
        expect(together).toEqual(apart);
        others.forEach((b, i) => expect(together[i]).toBeLessThanOrEqual(levenshtein(a, b)));
      }),
    );
  });

  it("trigramJaccardRange gives the Set-based Jaccard for one first text against many ranges of others (property)", () => {
    fc.assert(
      fc.property(text, fc.array(fc.tuple(text, fc.nat(10), fc.nat(10)), { minLength: 1, maxLength: 6 }), fc.nat(5), (a, others, cut) => {
        const to = Math.max(0, a.length - cut);
        for (const [b, x, y] of others) {
          const from = Math.min(x, b.length);
          const end = Math.max(from, b.length - y);
          expect(trigramJaccardRange(a, 0, to, b, from, end)).toBe(setJaccard(trigramSet(a, 0, to), trigramSet(b, from, end)));
          expect(trigramJaccardRange(a, 0, a.length, b, from, end)).toBe(setJaccard(trigramSet(a), trigramSet(b, from, end)));
        }
      }),
    );
  });
});

describe("characterDistanceLowerBound: the bound from single code points", () => {
  const unit = fc.constantFrom("a", "b", "长", "文", "😀", "\ud800", "\udc00", " ");
  const anyText = fc.string({ unit, maxLength: 60 });
  /** The same bound counted in a Map, from scratch. */
  const oracle = (a: string, b: string) => {
    const counts = new Map<number, number>();
    const ca = Array.from(a);
    const cb = Array.from(b);
    for (const ch of ca) counts.set(ch.codePointAt(0)!, (counts.get(ch.codePointAt(0)!) ?? 0) + 1);
    for (const ch of cb) counts.set(ch.codePointAt(0)!, (counts.get(ch.codePointAt(0)!) ?? 0) - 1);
    let l1 = 0;
    for (const v of counts.values()) l1 += Math.abs(v);
    return Math.ceil((l1 + Math.abs(ca.length - cb.length)) / 2);
  };

  it("is at most the exact Levenshtein distance, equals a Map-counting oracle, and 0 for equal texts (property)", () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        const bound = characterDistanceLowerBound(a, b);
        expect(bound).toBe(oracle(a, b)); // also: the shared counters are back to 0 after every call
        expect(bound).toBeLessThanOrEqual(levenshtein(a, b));
        if (a === b) expect(bound).toBe(0);
      }),
      { numRuns: 3000 },
    );
  });

  it("is tight where the bigram bound is loose: passages that share no characters", () => {
    const a = "天地玄黄宇宙洪荒日月盈昃辰宿列张";
    const b = "寒来暑往秋收冬藏闰余成岁律吕调阳";
    expect(levenshtein(a, b)).toBe(16);
    expect(characterDistanceLowerBound(a, b)).toBe(16);
    expect(editDistanceLowerBound(a, b)).toBe(8);
    expect(characterDistanceLowerBound("abc", "abcdefgh")).toBe(5);
    expect(characterDistanceLowerBound("abcdef", "abXdef")).toBe(1);
  });

  it("editSimilarityMayReach is true whenever the exact similarity reaches the threshold (property)", () => {
    fc.assert(
      fc.property(anyText, anyText, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, min) => {
        if (editSimilarity(a, b) >= min) expect(editSimilarityMayReach(a, b, min)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(editSimilarityMayReach("天地玄黄宇宙洪荒日月盈昃辰宿列张", "寒来暑往秋收冬藏闰余成岁律吕调阳", 0.1)).toBe(false);
  });
});
