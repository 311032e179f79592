/**
 * The candidate query: the four segment fields (plus their neighbours for
 * radius > 3), filtered to the dedup window. The pigeonhole bound makes this
 * exact: any fingerprint within radius r of the query agrees with it within
 * floor(r/4) bits on at least one segment, so it matches one of the terms.
 */
import { hex4, segmentValues, type Fingerprint } from "../core/fingerprint.js";
import { neighboursForRadius } from "../core/neighbours.js";

export interface CandidateQueryInput {
  simhash: Fingerprint;
  /** Hamming radius to cover. */
  radius: number;
  /** LSH band keys: a document sharing one is a candidate too. */
  lsh: readonly string[];
  /** Only documents with `neardup.timestamp` >= this (epoch ms). */
  since: number;
  /** Id to leave out (the document itself, on re-submission). */
  excludeId?: string | undefined;
  /** Most candidates to return. */
  size: number;
}

/**
 * Fields the first re-rank step needs, read from doc values (no `_source`
 * parsing): most candidates fail the Hamming check, and only the survivors'
 * texts are fetched afterwards with one `_mget`.
 */
export const CANDIDATE_FIELDS = [
  "neardup.simhash",
  "neardup.lsh",
  "neardup.status",
  "neardup.duplicate_of",
  { field: "neardup.timestamp", format: "epoch_millis" },
] as const;

/** The segment terms a lookup at `radius` must match: per segment field, the values to look up. */
export function segmentTerms(simhash: Fingerprint, radius: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  segmentValues(simhash).forEach((value, i) => {
    out[`neardup.seg${i}`] = neighboursForRadius(value, radius).map(hex4);
  });
  return out;
}

/**
 * A candidate search body: any of the segment terms or LSH keys, at or after
 * `since`, not `excludeId`. Everything is in filter context (no scoring) and
 * unsorted: the re-rank orders candidates itself, and both cost the engine more
 * than the lookup (measured in bench/service.ts). Used for one lookup and, with
 * the union of a group's terms, for a grouped bulk lookup (engine-candidates.ts).
 */
export function candidateSearchBody(terms: Record<string, readonly string[]>, lsh: readonly string[], since: number, size: number, excludeId?: string): Record<string, unknown> {
  const should: Record<string, unknown>[] = Object.entries(terms).map(([field, values]) =>
    values.length === 1 ? { term: { [field]: values[0] } } : { terms: { [field]: [...values] } },
  );
  if (lsh.length > 0) should.push({ terms: { "neardup.lsh": [...lsh] } });
  const bool: Record<string, unknown> = {
    filter: [{ bool: { should, minimum_should_match: 1 } }, { range: { "neardup.timestamp": { gte: since, format: "epoch_millis" } } }],
  };
  if (excludeId !== undefined) bool.must_not = [{ ids: { values: [excludeId] } }];
  return { size, track_total_hits: false, _source: false, docvalue_fields: CANDIDATE_FIELDS, query: { bool } };
}

/** The search body for one candidate lookup. */
export function candidateQuery(input: CandidateQueryInput): Record<string, unknown> {
  return candidateSearchBody(segmentTerms(input.simhash, input.radius), input.lsh, input.since, input.size, input.excludeId);
}
