/** The character cosine counted in typed arrays gives the Map-based cosine of the two texts' code-point counts, to the last bit. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charCosine, charCounts, cosine } from "../../../src/core/similarity/cosine.js";

const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "长", "文", "😀", "𠮷", "\ud800", "\udc00"), maxLength: 300 });

describe("charCosine", () => {
  it("equals cosine(charCounts(a), charCounts(b)) exactly, spaces ignored, lone surrogates as code points", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(charCosine(a, b)).toBe(cosine(charCounts(a), charCounts(b)));
        expect(charCosine(a, b)).toBe(charCosine(b, a));
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves nothing behind between calls", () => {
    expect(charCosine("aab", "ab")).toBe(cosine(charCounts("aab"), charCounts("ab")));
    expect(charCosine("   ", "a")).toBe(0);
    expect(charCosine("ab", "ab")).toBe(1);
    expect(charCosine("长文", "文长")).toBe(1);
  });
});
