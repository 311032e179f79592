import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTermCache } from "../../../src/core/term-cache.js";
import type { IdfTable } from "../../../src/core/idf.js";
import type { FeatureHasher } from "../../../src/core/simhash.js";
import type { StopWords } from "../../../src/core/stopwords.js";

function counted() {
  const computed = new Map<string, number>();
  const hasher: FeatureHasher = {
    hash: (term) => {
      computed.set(term, (computed.get(term) ?? 0) + 1);
      return { hi: term.length, lo: term.charCodeAt(0) };
    },
  };
  const idf = { idf: (term: string) => term.length / 2 } as unknown as IdfTable;
  const stop = new Set(["the"]) as unknown as StopWords;
  return { computed, hasher, idf, stop };
}

describe("term cache", () => {
  it("gives exactly the direct lookups' record for any sequence of words (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("the", "a", "bb", "ccc", "dd", "e", "fff", "gggg"), { maxLength: 200 }), fc.integer({ min: 1, max: 5 }), (words, limit) => {
        const { hasher, idf, stop } = counted();
        const cache = createTermCache(stop, idf, hasher, limit);
        for (const w of words) {
          const expected = w === "the" ? { stop: true, idf: 0, hi: 0, lo: 0 } : { stop: false, idf: w.length / 2, hi: w.length, lo: w.charCodeAt(0) };
          expect(cache.get(w)).toEqual(expected);
        }
      }),
    );
  });

  it("keeps a word seen once per generation, however many rare words pass by", () => {
    const { computed, hasher, idf, stop } = counted();
    const cache = createTermCache(stop, idf, hasher, 100);
    for (let i = 0; i < 10_000; i++) {
      cache.get("hot");
      cache.get(`rare${i}`);
    }
    expect(computed.get("hot")).toBe(1);
    expect(computed.get("rare5")).toBe(1);
    // A rare word long gone is computed again (the cache is bounded).
    cache.get("rare5");
    expect(computed.get("rare5")).toBe(2);
  });
});
