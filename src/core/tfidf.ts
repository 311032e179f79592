/**
 * Term counts and sparse TF-IDF vectors (spec §4-§5).
 *
 * Term frequency is normalized by document length: tf(t) = count(t) / L where
 * L is the number of word tokens in the document, stop words included (they
 * are words of the page; dropping them from the features must not make the
 * remaining words more frequent). The weight of a term is tf(t) * idf(t).
 */
import type { IdfTable } from "./idf.js";
import type { StopWords } from "./stopwords.js";

/** A sparse vector: term -> weight; absent terms are 0. Insertion order = first occurrence. */
export type SparseVector = ReadonlyMap<string, number>;

/** Counts tokens, skipping stop words; insertion order is the order of first occurrence. */
export function countTerms(tokens: readonly string[], stopWords?: StopWords): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) {
    if (stopWords !== undefined && stopWords.has(t)) continue;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return counts;
}

/**
 * TF-IDF weights: `count / documentLength * idf(term)`.
 * `documentLength` is the token count before stop-word removal.
 */
export function tfidfVector(counts: ReadonlyMap<string, number>, documentLength: number, idf: IdfTable): Map<string, number> {
  const v = new Map<string, number>();
  if (documentLength <= 0) return v;
  for (const [t, c] of counts) v.set(t, (c / documentLength) * idf.idf(t));
  return v;
}

/** Sum of TF-IDF weights of the given terms: the relevance of a page to a query. */
export function relevance(vector: SparseVector, terms: Iterable<string>): number {
  let s = 0;
  for (const t of terms) s += vector.get(t) ?? 0;
  return s;
}
