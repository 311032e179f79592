/** Issue 15: the linear edit-distance bound /v1/compare uses beyond its budget never exceeds the exact distance. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editDistanceLowerBound, editSimilarity, editSimilarityUpperBound, levenshtein } from "../../../src/core/similarity/index.js";

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
