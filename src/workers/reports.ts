/**
 * What /v1/fingerprint and /v1/compare answer, as plain functions of a
 * fingerprinter, so they can run on the event loop (small inputs) or on the
 * worker pool (large ones, issue 15) with the same result.
 */
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { hamming } from "../core/fingerprint.js";
import { charCosine, cosine, editSimilarityUpperBound, levenshteinInBudget, shingleJaccard } from "../core/similarity/index.js";
import { trigramContainment, trigramJaccard } from "../core/similarity/spread.js";

export interface FingerprintJob {
  kind: "fingerprint";
  text: string;
  top: number;
}

export interface CompareJob {
  kind: "compare";
  a: string;
  b: string;
  /** Exact edit distance within the work of two texts this long (core `levenshteinInBudget`: any pair that short, and longer pairs whose distance fits the band that work pays for). */
  editMaxChars: number;
}

export type ReportJob = FingerprintJob | CompareJob;

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Term counts as a vector with weight 1 per occurrence: the plain TF cosine. */
function tfVector(a: Analysis): Map<string, number> {
  return new Map(a.termCounts);
}

export function fingerprintReport(fp: Fingerprinter, job: FingerprintJob) {
  const a = fp.analyze(job.text, "text");
  const top = [...a.vector.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, job.top);
  return {
    simhash: a.hex,
    segments: a.segments,
    version: a.version,
    length: a.length,
    short: a.short,
    terms: top.map(([term, weight]) => ({ term, weight: round(weight) })),
  };
}

/**
 * Every pairwise measure. Edit distance is quadratic in the worst case (two
 * texts far apart: about 2 ms for 4,000 characters each, 0.4 s at 50,000, 13 s
 * at 200,000), so it is computed within the work of two `editMaxChars`-long
 * texts (core `levenshteinInBudget`): exact for any pair that short, and for a
 * longer pair when its distance fits the band that work pays for (two long
 * near-duplicates). Otherwise `edit_distance` is null and `edit_similarity`
 * is the linear q-gram upper bound (`edit_measure` says which).
 */
export function compareReport(fp: Fingerprinter, job: CompareJob) {
  const a = fp.analyze(job.a, "a");
  const b = fp.analyze(job.b, "b");
  const verdict = fp.compare(a, b);
  const distance = levenshteinInBudget(a.normalized, b.normalized, job.editMaxChars * job.editMaxChars);
  const longer = Math.max(a.length, b.length);
  return {
    hamming: hamming(a.simhash, b.simhash),
    simhash: { a: a.hex, b: b.hex },
    tfidf_cosine: round(cosine(a.vector, b.vector)),
    tf_cosine: round(cosine(tfVector(a), tfVector(b))),
    char_cosine: round(charCosine(a.normalized, b.normalized)),
    edit_distance: distance ?? null,
    edit_similarity: round(distance === undefined ? editSimilarityUpperBound(a.normalized, b.normalized) : longer === 0 ? 1 : 1 - distance / longer),
    edit_measure: distance === undefined ? "qgram_bound" : "levenshtein",
    jaccard_bigrams: round(shingleJaccard(a.normalized, b.normalized, 2)),
    // The `<bucket>.jaccard` rule's measure (docs audit: compare did not show it, only search and check did).
    jaccard_trigrams: round(trigramJaccard(a.normalized, b.normalized)),
    // The `<bucket>.contained` rule's measure: the share of the smaller 3-gram set found in the other.
    containment_trigrams: round(trigramContainment(a.normalized, b.normalized)),
    // `vetoed`: the veto that overruled a duplicate rule (the pair then is not one), so a caller can see why.
    verdict: { duplicate: verdict.duplicate, rule: verdict.rule, bucket: verdict.bucket, vetoed: verdict.vetoed ?? null },
  };
}

export function runReport(fp: Fingerprinter, job: ReportJob): unknown {
  return job.kind === "fingerprint" ? fingerprintReport(fp, job) : compareReport(fp, job);
}

/** Characters a job analyses: what decides whether it may run on the event loop. */
export function reportSize(job: ReportJob): number {
  return job.kind === "fingerprint" ? job.text.length : job.a.length + job.b.length;
}
