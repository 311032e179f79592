/** The edit distance inside Ukkonen's band (similarity/banded.ts): exact when within k, over k otherwise. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editSimilarity, editSimilarityAtLeast, levenshtein, levenshteinWithin } from "../../../src/core/similarity/index.js";
import { levenshteinBanded, levenshteinInBudget } from "../../../src/core/similarity/banded.js";
import { greedyWithin } from "../../../src/core/similarity/greedy.js";
import { textbookLevenshtein as dp } from "../../../bench/core.js"; // the oracle: the textbook dynamic programme over code points

const unit = fc.constantFrom("a", "b", "c", "长", "文", "😀", "\ud800", "\udc00"); // lone halves too: they are code points of their own
const base = fc.string({ unit, maxLength: 160 });
const edit = fc.record({ at: fc.nat(), op: fc.constantFrom("insert", "delete", "substitute"), char: unit });

/** A text and a copy with some edits: distances near the thresholds, texts spanning several 32-row blocks. */
const pair = fc.tuple(base, fc.array(edit, { maxLength: 40 }), fc.boolean(), base).map(([a, edits, unrelated, other]) => {
  if (unrelated) return [a, other] as const;
  const b = Array.from(a);
  for (const e of edits) {
    const at = e.at % (b.length + 1);
    if (e.op === "insert") b.splice(at, 0, e.char);
    else if (e.op === "delete") b.splice(at, 1);
    else b[at] = e.char;
  }
  return [a, b.join("")] as const;
});

describe("levenshteinWithin", () => {
  it("is the exact distance when it is at most k, and more than k otherwise", () => {
    fc.assert(
      fc.property(pair, fc.nat({ max: 80 }), ([a, b], k) => {
        const d = dp(a, b);
        const w = levenshteinWithin(a, b, k);
        if (d <= k) expect(w).toBe(d);
        else expect(w).toBeGreaterThan(k);
      }),
      { numRuns: 3000 },
    );
  });

  it("is exact at the band's edges: k equal to the distance and one below it", () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const d = dp(a, b);
        expect(levenshteinWithin(a, b, d)).toBe(d);
        if (d > 0) expect(levenshteinWithin(a, b, d - 1)).toBeGreaterThan(d - 1);
      }),
      { numRuns: 1000 },
    );
  });

  it("handles texts of more than 65,536 distinct code points (outside the BMP)", () => {
    const a = Array.from({ length: 66_000 }, (_, i) => String.fromCodePoint(0x20000 + i)).join("");
    const b = `${a.slice(0, -2)}x`; // the last code point (a surrogate pair) replaced
    expect(levenshteinWithin(a, b, 1)).toBe(1);
    expect(levenshteinWithin(a, b, 0)).toBeGreaterThan(0);
    expect(editSimilarityAtLeast(a, b, 0.5)).toBe(1 - 1 / 66_000);
  });

  it("handles empty texts, block boundaries and a negative bound", () => {
    expect(levenshteinWithin("", "", 0)).toBe(0);
    expect(levenshteinWithin("", "abc", 3)).toBe(3);
    expect(levenshteinWithin("", "abc", 2)).toBeGreaterThan(2);
    expect(levenshteinWithin("abc", "abc", -1)).toBeGreaterThan(-1);
    for (const n of [31, 32, 33, 63, 64, 65, 97]) {
      const a = "ab".repeat(n).slice(0, n);
      const b = `x${a.slice(1, -1)}y`;
      expect(levenshteinWithin(a, b, 2)).toBe(dp(a, b));
      expect(levenshteinWithin(a, `${a}zz`, 2)).toBe(2);
      expect(levenshteinWithin(a, `${a}zz`, 1)).toBeGreaterThan(1);
    }
  });
});

describe("greedyWithin (furthest diagonals, for pairs a few edits apart)", () => {
  const points = (s: string) => Int32Array.from(Array.from(s, (c) => c.codePointAt(0)!));
  it("is the distance when it is at most cap, and cap + 1 otherwise, on whole texts and on ranges inside them", () => {
    fc.assert(
      fc.property(pair, fc.nat({ max: 40 }), fc.nat({ max: 3 }), ([a, b], cap, pad) => {
        const d = dp(a, b);
        // The texts inside longer arrays, `pad` code points in: ranges, not whole arrays.
        const x = new Int32Array(points(a).length + 2 * pad).fill(-7);
        x.set(points(a), pad);
        const y = new Int32Array(points(b).length + 2 * pad).fill(-9);
        y.set(points(b), pad);
        const got = greedyWithin(x, pad, pad + points(a).length, y, pad, pad + points(b).length, cap);
        expect(got).toBe(d <= cap ? d : cap + 1);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("levenshteinBanded (the exact distance: the band widened until it holds it)", () => {
  it("is the textbook distance, near and far pairs alike", () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(levenshteinBanded(a, b)).toBe(dp(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it("is the textbook distance when it needs the third and fourth bands (more than 192 edits)", () => {
    const long = fc.string({ unit, minLength: 400, maxLength: 700 });
    fc.assert(
      fc.property(long, fc.array(fc.nat(), { minLength: 150, maxLength: 400 }), long, fc.boolean(), (a, at, other, unrelated) => {
        const x = Array.from(a);
        for (const i of at) x[i % x.length] = "z";
        const b = unrelated ? other : x.join("");
        expect(levenshteinBanded(a, b)).toBe(dp(a, b));
      }),
      { numRuns: 20 },
    );
  });

  it("serves levenshtein beyond 65,536 distinct code points, which once fell back to a quadratic programme", () => {
    const a = Array.from({ length: 66_000 }, (_, i) => String.fromCodePoint(0x20000 + i)).join("");
    expect(levenshtein(a, `${a.slice(0, -2)}x`)).toBe(1);
    expect(levenshtein(`y${a}`, `${a.slice(0, -2)}x`)).toBe(2);
    expect(editSimilarity(a, `${a.slice(0, 1000)}${a.slice(1002)}`)).toBe(1 - 1 / 66_000);
  });
});

describe("levenshteinInBudget (/v1/compare's exact distance within a budget of cells)", () => {
  it("is the distance or undefined; defined whenever the whole matrix or a band holding the distance fits the budget", () => {
    fc.assert(
      fc.property(pair, fc.integer({ min: 1, max: 30_000 }), ([a, b], cells) => {
        const d = dp(a, b);
        const got = levenshteinInBudget(a, b, cells);
        if (got !== undefined) expect(got).toBe(d);
        const m = Array.from(a).length;
        const n = Array.from(b).length;
        const rows = Math.min(m, n);
        if (m * n <= cells || d <= Math.floor(cells / Math.max(1, rows)) - 33) expect(got).toBe(d);
      }),
      { numRuns: 3000 },
    );
  });

  it("finds a few edits between two 100,000-character texts within the work of two 4,000-character ones, and gives up on texts far apart", () => {
    const a = Array.from({ length: 100_000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 2000))).join("");
    const b = `${a.slice(0, 500)}x${a.slice(501, 70_000)}${a.slice(70_010)}yz`;
    expect(levenshteinInBudget(a, b, 4000 * 4000)).toBe(13); // 1 substitution, 10 deletions, 2 insertions
    expect(levenshteinInBudget(a, Array.from(a).reverse().join(""), 4000 * 4000)).toBeUndefined();
  });
});

describe("editSimilarityAtLeast", () => {
  it("is editSimilarity when that reaches min, and when it is a number", () => {
    fc.assert(
      fc.property(pair, fc.double({ min: 0, max: 1, noNaN: true }), ([a, b], min) => {
        const exact = editSimilarity(a, b);
        const s = editSimilarityAtLeast(a, b, min);
        if (exact >= min) expect(s).toBe(exact);
        if (s !== undefined) expect(s).toBe(exact);
      }),
      { numRuns: 3000 },
    );
  });
});
