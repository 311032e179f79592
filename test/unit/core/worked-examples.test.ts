// The worked examples of the original design (issue 3).
import { describe, expect, it } from "vitest";
import { countTerms, relevance, tfidfVector } from "../../../src/core/index.js";
import type { IdfTable } from "../../../src/core/index.js";

describe("worked examples from the original design", () => {
  it("TF 3/100 with IDF log10(10,000,000 / 1,000) = 4 gives 0.12", () => {
    const idf: IdfTable = { idf: () => Math.log10(10_000_000 / 1_000) };
    const tokens = [...Array(3).fill("cow"), ...Array(97).fill("x")] as string[];
    const v = tfidfVector(countTerms(tokens), tokens.length, idf);
    expect(idf.idf("cow")).toBeCloseTo(4, 12);
    expect(v.get("cow")).toBeCloseTo(0.12, 12);
  });

  it("relevance 0.1*ln(10) + 0.2*ln(1) + 0.05*ln(2) is about 0.2645", () => {
    const idfs: Record<string, number> = { a: Math.log(10), b: Math.log(1), c: Math.log(2) };
    const idf: IdfTable = { idf: (t) => idfs[t] ?? 0 };
    // TFs 0.1, 0.2, 0.05 in a 100-word page.
    const tokens = [...Array(10).fill("a"), ...Array(20).fill("b"), ...Array(5).fill("c"), ...Array(65).fill("z")] as string[];
    const v = tfidfVector(countTerms(tokens), tokens.length, idf);
    // Exactly 0.26492; the original text rounds it to 0.2645, within 5e-4.
    expect(relevance(v, ["a", "b", "c"])).toBeCloseTo(0.2645, 3);
  });

  it("原子能 2, 的 35, 应用 5 in 1,000 words: TF sum 0.042, 0.007 without the stop word", () => {
    const page = [...Array(2).fill("原子能"), ...Array(35).fill("的"), ...Array(5).fill("应用"), ...Array(958).fill("其他")] as string[];
    const ones: IdfTable = { idf: () => 1 };
    const all = tfidfVector(countTerms(page), page.length, ones);
    expect(relevance(all, ["原子能", "的", "应用"])).toBeCloseTo(0.042, 12);
    // Stop words leave the features but still count in the document length.
    const noStop = tfidfVector(countTerms(page, new Set(["的"])), page.length, ones);
    expect(relevance(noStop, ["原子能", "的", "应用"])).toBeCloseTo(0.007, 12);
  });
});
