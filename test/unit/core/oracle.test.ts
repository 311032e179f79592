// Oracle: neardup's TF-IDF cosine equals scikit-learn's TfidfVectorizer on the
// same tokens (fixture made by test/fixtures/oracle/make_sklearn_fixtures.py).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CorpusIdf, cosine, countTerms, tfidfVector } from "../../../src/core/index.js";

interface Oracle {
  documents: string[][];
  idf: Record<string, number>;
  tfidf_cosine: number[][];
  count_cosine: number[][];
}

const oracle = JSON.parse(readFileSync(new URL("../../fixtures/oracle/sklearn-tfidf.json", import.meta.url), "utf8")) as Oracle;

describe("TF-IDF against scikit-learn", () => {
  const table = CorpusIdf.fit(oracle.documents);
  const counts = oracle.documents.map((d) => countTerms(d));
  const vectors = oracle.documents.map((d, i) => tfidfVector(counts[i]!, d.length, table));

  it("smoothed corpus IDF equals TfidfVectorizer.idf_ to 1e-12", () => {
    for (const [term, idf] of Object.entries(oracle.idf)) expect(Math.abs(table.idf(term) - idf)).toBeLessThan(1e-12);
  });

  it("TF-IDF cosine equals sklearn's to 1e-9 for every pair", () => {
    oracle.tfidf_cosine.forEach((row, i) =>
      row.forEach((expected, j) => {
        expect(Math.abs(cosine(vectors[i]!, vectors[j]!) - Math.min(1, expected))).toBeLessThan(1e-9);
      }),
    );
  });

  it("raw term-count cosine equals sklearn's CountVectorizer cosine to 1e-9", () => {
    oracle.count_cosine.forEach((row, i) =>
      row.forEach((expected, j) => {
        expect(Math.abs(cosine(counts[i]!, counts[j]!) - Math.min(1, expected))).toBeLessThan(1e-9);
      }),
    );
  });
});
