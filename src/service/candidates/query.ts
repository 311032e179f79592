/**
 * Candidate query bodies. A document is a candidate of a lookup when it
 * - has the lookup's fingerprint scheme (`neardup.version`), and
 * - matches one of the segment terms (the four segment fields plus their
 *   neighbours for radius > 3: the pigeonhole bound makes this exact, since any
 *   fingerprint within radius r agrees with the query within floor(r/4) bits on
 *   at least one segment; two of them when the lookup has LSH keys, see
 *   `segmentsNeeded`), or shares an LSH key of a comparable LSH scheme
 *   (`neardup.lsh_scheme`; lsh1 and lsh2 of one banding have the same band
 *   keys, so each matches the other; documents from before contract v3 carry
 *   none and count as `lsh1-16x3`), or two of its paired (common) keys, and
 * - is in the dedup window (since <= `neardup.timestamp` <= until) and is not the
 *   document itself.
 *
 * A single lookup is scored and sorted so that it can be paged completely
 * with `search_after`: every key clause is a `constant_score` of 1, so a
 * hit's score is the number of keys it shares with the query, and hits come
 * most-shared first, then oldest first, then by simhash. If a bound on pages
 * is reached, what is left unread is what shares the fewest keys. A write's
 * lookup (`oldestFirst`) wants only the earliest duplicate: its hits come
 * oldest first, then by simhash, so that it can stop paging at the first
 * page that holds a duplicate (candidates/index.ts).
 */
import { hex4, segmentValues, type Fingerprint } from "../../core/fingerprint.js";
import { comparableVersions } from "../../core/fingerprinter.js";
import { subtractLengthRanges, type LengthRange } from "../../core/length-bounds.js";
import { comparableLshSchemes, LEGACY_LSH_SCHEME } from "../../core/lsh.js";
import { neighboursForRadius } from "../../core/neighbours.js";

/** Which stored documents are comparable with the query. */
export interface Scheme {
  /** Fingerprint version (`neardup.version`), e.g. `nd1`. */
  version: string;
  /** LSH scheme of the query's keys, e.g. `lsh2-16x3`. */
  lshScheme: string;
}

export interface CandidateQueryInput {
  simhash: Fingerprint;
  /** Hamming radius to cover. */
  radius: number;
  /** LSH band keys: a document sharing one is a candidate too. */
  lsh: readonly string[];
  /** Common LSH band keys (keys.ts): a document sharing two of them is a candidate too. */
  pairedLsh?: readonly string[] | undefined;
  scheme: Scheme;
  /** Only documents with `neardup.timestamp` >= this (epoch ms). */
  since: number;
  /** And <= this (epoch ms; the window holds both ways). Default: no bound. */
  until?: number | undefined;
  /** Id to leave out (the document itself, on re-submission). */
  excludeId?: string | undefined;
  /** Hits per page. */
  size: number;
  /** The sort values of the previous page's last hit. */
  searchAfter?: unknown[] | undefined;
  /** Sort oldest first, then by simhash (`OLDEST_FIRST_SORT`; by id when read from doc values only, `OLDEST_FIRST_BY_ID_SORT`), instead of most shared keys first. */
  oldestFirst?: boolean | undefined;
  /** Read doc values only (contract v4, reads.ts): the id from `neardup.id`, not `_id` (a stored field), and the band keys from `neardup.lsh_list`. */
  docValuesOnly?: boolean | undefined;
  /**
   * Lengths (`neardup.length`) a document reached through band keys must have
   * unless it shares a segment (core length-bounds.ts): outside them no verdict
   * rule holds. Undefined: any length.
   */
  lengths?: readonly LengthRange[] | undefined;
  /**
   * Of `lengths`, those at which a document reached through band keys, sharing
   * no segment, must share two of the lookup's keys (core length-bounds.ts
   * `twoKeyLengths`). Undefined: none.
   */
  twoKeyLengths?: readonly LengthRange[] | undefined;
}

/**
 * Fields the re-rank needs, read from doc values (no `_source` parsing): the
 * simhash and keys for the reach rule, the verdict fields for "first one
 * wins", and the sketch (contract v3) for the verdict rules.
 */
export const CANDIDATE_FIELDS = [
  "neardup.id",
  "neardup.simhash",
  "neardup.lsh",
  "neardup.lsh_scheme",
  "neardup.status",
  "neardup.duplicate_of",
  "neardup.sketch",
  { field: "neardup.timestamp", format: "epoch_millis" },
] as const;

/**
 * The same for a window of contract v4 documents only: the band keys from one
 * binary doc value (`neardup.lsh_list`) instead of the keyword's sorted-set
 * doc values, which cost a dictionary lookup per key and hit.
 */
export const CANDIDATE_FIELDS_V4 = CANDIDATE_FIELDS.map((f) => (f === "neardup.lsh" ? "neardup.lsh_list" : f));

function fieldsOf(docValuesOnly: boolean | undefined): readonly unknown[] {
  return docValuesOnly ? CANDIDATE_FIELDS_V4 : CANDIDATE_FIELDS;
}

/** The sort that pages a single lookup: most shared keys, oldest, then simhash. */
export const CANDIDATE_SORT = [{ _score: "desc" }, { "neardup.timestamp": "asc" }, { "neardup.simhash": "asc" }] as const;
/** The sort that pages a write's lookup (`oldestFirst`): oldest, then simhash. */
export const OLDEST_FIRST_SORT = [{ "neardup.timestamp": "asc" }, { "neardup.simhash": "asc" }] as const;
/**
 * The sort that pages a write's lookup read from doc values only (contract v4: every document has
 * `neardup.id`): oldest, then id. Positions are unique, so `search_after` skips nothing and needs no tie query,
 * and copies written in one bulk (one time, one simhash) come in id order: a lookup may settle at its first
 * duplicate (`firstInIdOrder`) instead of reading every copy of that time (audit 18, F4).
 */
export const OLDEST_FIRST_BY_ID_SORT = [{ "neardup.timestamp": "asc" }, { "neardup.id": "asc" }] as const;

/** The sort of a lookup read oldest first. */
export function oldestFirstSort(docValuesOnly: boolean | undefined): typeof OLDEST_FIRST_SORT | typeof OLDEST_FIRST_BY_ID_SORT {
  return docValuesOnly ? OLDEST_FIRST_BY_ID_SORT : OLDEST_FIRST_SORT;
}

/**
 * Whether the engine's order of ids (keyword doc values: UTF-8 bytes) puts every id that sorts before `id` in
 * code units (JavaScript's `<`, the order of `byTimeThenId`) before `id` too: true when `id` has no code unit
 * at or past U+D800. At the first code unit where a smaller id differs, its unit is below this id's, so below
 * U+D800, where UTF-8 keeps the code point order.
 */
export function firstInIdOrder(id: string): boolean {
  for (let i = 0; i < id.length; i++) if (id.charCodeAt(i) >= 0xd800) return false;
  return true;
}

/** The (timestamp, simhash) sort values of a hit of `input`'s query; undefined when the hit has none. */
export function sortPosition(input: Pick<CandidateQueryInput, "oldestFirst">, sort: unknown[] | undefined): { timestamp: unknown; simhash: unknown } | undefined {
  const at = input.oldestFirst ? 0 : 1;
  if (!sort || sort.length < at + 2) return undefined;
  return { timestamp: sort[at], simhash: sort[at + 1] };
}

/** The segment terms a lookup at `radius` must match: per segment field, the values to look up. */
export function segmentTerms(simhash: Fingerprint, radius: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  segmentValues(simhash).forEach((value, i) => {
    out[`neardup.seg${i}`] = neighboursForRadius(value, radius).map(hex4);
  });
  return out;
}

/**
 * Exact segments a stored fingerprint must share with the query: 2 when the
 * lookup also has LSH keys and a radius of at most 3, else 1 (the pigeonhole
 * bound). Two of four 16-bit segments is a 32-bit key: about 6.5 engine hits
 * per lookup per million stored documents on real texts instead of 71, and
 * the near-duplicates within 3 bits that share only one segment (their three
 * differing bits in three segments) are found through their LSH keys:
 * end-to-end recall on the quality benchmark is unchanged (0.9680, `npx tsx
 * bench/quality/selective-keys.ts`, docs/benchmarks.md).
 */
export function segmentsNeeded(radius: number, lsh: readonly string[]): number {
  return lsh.length > 0 && radius <= 3 ? 2 : 1;
}

/** How many of the four segments of `a` and `b` are equal. */
export function sharedSegments(a: Fingerprint, b: Fingerprint): number {
  const x = a.hi ^ b.hi;
  const y = a.lo ^ b.lo;
  return Number(x >>> 16 === 0) + Number((x & 0xffff) === 0) + Number(y >>> 16 === 0) + Number((y & 0xffff) === 0);
}

/** Documents of an LSH scheme comparable with `lshScheme` (core `comparableLshSchemes`; documents without `lsh_scheme` are lsh1-16x3). */
function lshSchemeFilter(lshScheme: string): Record<string, unknown> {
  const schemes = comparableLshSchemes(lshScheme);
  const same = termClause("neardup.lsh_scheme", schemes);
  if (!schemes.includes(LEGACY_LSH_SCHEME)) return same;
  return { bool: { should: [same, { bool: { must_not: [{ exists: { field: "neardup.lsh_scheme" } }] } }], minimum_should_match: 1 } };
}

/** Documents sharing at least two of `keys` (of the scheme, when `schemeFilter` is given: else the enclosing query filters it); scored by how many they share. */
function pairClause(keys: readonly string[], schemeFilter?: Record<string, unknown>): Record<string, unknown> {
  return {
    bool: {
      ...(schemeFilter ? { filter: [schemeFilter] } : {}),
      should: keys.map((key) => ({ constant_score: { filter: { term: { "neardup.lsh": key } }, boost: 1 } })),
      minimum_should_match: 2,
    },
  };
}

/**
 * Documents of one of `lengths` or sharing a segment value with one of
 * `simhashes`: what a band key may reach (`CandidateQueryInput.lengths`).
 */
export function lengthOrSegmentFilter(lengths: readonly LengthRange[], simhashes: readonly Fingerprint[]): Record<string, unknown> {
  const should: Record<string, unknown>[] = lengths.map(lengthRange);
  const values: Set<string>[] = [new Set(), new Set(), new Set(), new Set()];
  for (const simhash of simhashes) segmentValues(simhash).forEach((value, i) => values[i]!.add(hex4(value)));
  values.forEach((set, i) => should.push(termClause(`neardup.seg${i}`, [...set].sort())));
  return { bool: { should, minimum_should_match: 1 } };
}

function lengthRange([lo, hi]: LengthRange): Record<string, unknown> {
  return { range: { "neardup.length": hi === Infinity ? { gte: lo } : { gte: lo, lte: hi } } };
}

/**
 * What a single lookup's band keys may reach (`CandidateQueryInput.lengths`
 * and `twoKeyLengths`): a document sharing a segment, or of a length where
 * one key is enough, or of a two-key length and sharing two of `keys`.
 */
function keyReachFilter(input: CandidateQueryInput, lengths: readonly LengthRange[], keys: readonly string[]): Record<string, unknown> {
  const two = input.twoKeyLengths ?? [];
  const oneKey = lengthOrSegmentFilter(subtractLengthRanges(lengths, two), [input.simhash]);
  if (two.length === 0 || keys.length < 2) return oneKey;
  const pairs = { bool: { filter: [two.length === 1 ? lengthRange(two[0]!) : { bool: { should: two.map(lengthRange), minimum_should_match: 1 } }], should: keys.map((key) => ({ term: { "neardup.lsh": key } })), minimum_should_match: 2 } };
  return { bool: { should: [oneKey, pairs], minimum_should_match: 1 } };
}

/** The dedup window of a document at `time`: documents from `since` to `until` (epoch ms), both ways. */
export function windowAround(time: number, windowMs: number): { since: number; until: number } {
  return { since: time - windowMs, until: time + windowMs };
}

function windowFilter(since: number, until = Infinity): Record<string, unknown> {
  return { range: { "neardup.timestamp": { gte: since, ...(Number.isFinite(until) ? { lte: until } : {}), format: "epoch_millis" } } };
}

/** Documents of a version comparable with one of `versions` (core `comparableVersions`). */
function versionFilter(versions: readonly string[]): Record<string, unknown> {
  const all = [...new Set(versions.flatMap(comparableVersions))];
  return all.length === 1 ? { term: { "neardup.version": all[0] } } : { terms: { "neardup.version": all } };
}

function termClause(field: string, values: readonly string[]): Record<string, unknown> {
  return values.length === 1 ? { term: { [field]: values[0] } } : { terms: { [field]: [...values] } };
}

/**
 * The scored, sorted search body for one lookup: one constant-score clause per
 * segment field and per LSH key, so the score counts shared keys.
 */
export function candidateQuery(input: CandidateQueryInput): Record<string, unknown> {
  const segmentClauses = Object.entries(segmentTerms(input.simhash, input.radius)).map(([field, values]) => ({
    constant_score: { filter: termClause(field, values), boost: 1 },
  }));
  const paired = input.pairedLsh ?? [];
  const need = segmentsNeeded(input.radius, input.lsh.length > 0 ? input.lsh : paired);
  const should: Record<string, unknown>[] = need === 1 ? segmentClauses : [{ bool: { should: segmentClauses, minimum_should_match: need } }];
  const keyed: Record<string, unknown>[] = input.lsh.map((key) => ({ constant_score: { filter: { term: { "neardup.lsh": key } }, boost: 1 } }));
  if (paired.length >= 2) keyed.push(pairClause(paired));
  // Key clauses score one a shared key; the filters score nothing. The scheme filter is said once for all the
  // keys (said in each of 16 key clauses, the engine rewrote it 16 times: about a fifth of a check's query time).
  if (keyed.length > 0) {
    const filter = [lshSchemeFilter(input.scheme.lshScheme)];
    if (input.lengths) filter.push(keyReachFilter(input, input.lengths, [...input.lsh, ...paired]));
    should.push({ bool: { should: keyed, minimum_should_match: 1, filter } });
  }
  const bool: Record<string, unknown> = {
    should,
    minimum_should_match: 1,
    filter: [versionFilter([input.scheme.version]), windowFilter(input.since, input.until)],
  };
  if (input.excludeId !== undefined) bool.must_not = [{ ids: { values: [input.excludeId] } }];
  const body: Record<string, unknown> = {
    size: input.size,
    track_total_hits: false,
    _source: false,
    docvalue_fields: fieldsOf(input.docValuesOnly),
    query: { bool },
    sort: input.oldestFirst ? oldestFirstSort(input.docValuesOnly) : CANDIDATE_SORT,
  };
  if (input.docValuesOnly) body.stored_fields = "_none_";
  if (input.searchAfter) body.search_after = input.searchAfter;
  return body;
}

/**
 * The hits that share the sort position (timestamp, simhash) of a page's last
 * hit: `search_after` skips those of them that did not fit the page, so they
 * are read apart (sort values are not unique: equal copies written in one bulk
 * have the same time and simhash).
 */
export function tieQuery(input: CandidateQueryInput, timestamp: unknown, simhash: unknown): Record<string, unknown> {
  const body = candidateQuery({ ...input, searchAfter: undefined });
  const bool = (body.query as { bool: { filter: unknown[] } }).bool;
  bool.filter = [...bool.filter, { term: { "neardup.timestamp": timestamp } }, { term: { "neardup.simhash": simhash } }];
  return body;
}

/** Lookups whose "two of four segments" clauses (`segmentsNeeded` 2) a grouped query merges into one (`twoSegmentsClauses`). */
export const SEGMENT_UNION_LOOKUPS = 32;

/**
 * The "two of four segments" clauses of a group's lookups, merged by runs of
 * `SEGMENT_UNION_LOOKUPS` (a run may be a single lookup): two of the four
 * fields' `terms` over the run's values. A document that shares two segments with some lookup of the run
 * matches, so this is a superset of the per-lookup clauses; it also matches a
 * document that shares one segment with one lookup and another with a second
 * (about 6 N run / 2^32 documents a lookup, N stored), which the lookups'
 * acceptor then drops (candidates/index.ts). Each per-lookup clause costs
 * the engine four term seeks in every segment, where a run's `terms` seeks
 * its values in one pass: a captured group of 250 lookups at 1.3M documents
 * took 74 instead of 108 ms, with 41 more hits (docs/benchmarks.md).
 */
export function twoSegmentsClauses(simhashes: readonly Fingerprint[]): Record<string, unknown>[] {
  const clauses: Record<string, unknown>[] = [];
  for (let start = 0; start < simhashes.length; start += SEGMENT_UNION_LOOKUPS) {
    const run = simhashes.slice(start, start + SEGMENT_UNION_LOOKUPS);
    const values: Set<string>[] = [new Set(), new Set(), new Set(), new Set()];
    for (const simhash of run) segmentValues(simhash).forEach((value, i) => values[i]!.add(hex4(value)));
    const should = values.map((set, i) => ({ terms: { [`neardup.seg${i}`]: [...set].sort() } }));
    clauses.push({ bool: { should, minimum_should_match: 2 } });
  }
  return clauses;
}

/**
 * Band keys of some lookups of a group: the documents sharing one of `keys`
 * (taken alone) or two of one of `pairs` (a lookup's paired keys), of
 * `lengths` or sharing a segment with one of `simhashes` when `lengths` is set
 * (`lengthOrSegmentFilter`; lookups of about the same length share one such
 * clause, candidates/index.ts).
 */
export interface KeyGroup {
  keys: readonly string[];
  pairs: readonly (readonly string[])[];
  lengths?: readonly LengthRange[] | undefined;
  simhashes: readonly Fingerprint[];
}

/**
 * The unsorted, unscored body of a grouped bulk lookup, in filter context
 * (cheaper than the scored single query): "two of four segments" clauses for
 * the lookups that need two (`twoSegments`, merged by runs:
 * `twoSegmentsClauses`), the union of the other lookups'
 * segment terms (`terms`), and the band keys (`keys`: per group of lookups,
 * their keys taken alone and a "two of these" clause per lookup with paired
 * keys, under the group's length filter). The documents of the
 * lookups' single queries, and few more, so a group's hits grow with its
 * lookups' matches, not with the segment values they share with everything
 * stored (a single 16-bit segment is shared by N / 65,536 documents per field).
 * The caller falls back to single lookups when a page fills.
 */
export function groupSearchBody(
  terms: Record<string, readonly string[]>,
  keys: readonly KeyGroup[],
  schemes: readonly Scheme[],
  since: number,
  size: number,
  twoSegments: readonly Fingerprint[] = [],
  docValuesOnly = false,
  until = Infinity,
): Record<string, unknown> {
  const should: Record<string, unknown>[] = Object.entries(terms)
    .filter(([, values]) => values.length > 0)
    .map(([field, values]) => termClause(field, values));
  should.push(...twoSegmentsClauses(twoSegments));
  const lshSchemes = [...new Set(schemes.map((s) => s.lshScheme))];
  const schemeFilter = lshSchemes.length === 1 ? lshSchemeFilter(lshSchemes[0]!) : { bool: { should: lshSchemes.map(lshSchemeFilter), minimum_should_match: 1 } };
  for (const group of keys) {
    const parts: Record<string, unknown>[] = [];
    if (group.keys.length > 0) parts.push({ bool: { filter: [{ terms: { "neardup.lsh": [...group.keys] } }, schemeFilter] } });
    for (const pair of group.pairs) if (pair.length >= 2) parts.push(pairClause(pair, schemeFilter));
    if (parts.length === 0) continue;
    const clause = parts.length === 1 ? parts[0]! : { bool: { should: parts, minimum_should_match: 1 } };
    should.push(group.lengths ? { bool: { filter: [clause, lengthOrSegmentFilter(group.lengths, group.simhashes)] } } : clause);
  }
  const versions = [...new Set(schemes.map((s) => s.version))];
  return {
    size,
    track_total_hits: false,
    _source: false,
    ...(docValuesOnly ? { stored_fields: "_none_" } : {}),
    docvalue_fields: fieldsOf(docValuesOnly),
    query: { bool: { filter: [{ bool: { should, minimum_should_match: 1 } }, versionFilter(versions), windowFilter(since, until)] } },
  };
}

/**
 * The body that reads what the edit rule needs of some documents: their text
 * field (`_source` filtering), and `neardup.normalized` where documents
 * written before 0.4 stored it.
 */
export function normalizedTextQuery(ids: readonly string[], textField: string): Record<string, unknown> {
  return { size: ids.length, track_total_hits: false, _source: [textField], docvalue_fields: ["neardup.normalized"], query: { ids: { values: [...ids] } } };
}
