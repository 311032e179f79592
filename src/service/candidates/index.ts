/**
 * Candidate retrieval: the one entry point from a lookup (an analysed text,
 * its time and radius) to the stored documents the re-rank compares it with,
 * each carrying what the verdict rules need (its sketch, and the normalized
 * text only where the edit rule must run).
 *
 * Complete, or says so. A single lookup is paged with `search_after` over a
 * total order (shared keys, time, simhash; ties at a page boundary are read
 * apart) until the engine has nothing more or `maxPages` pages were read;
 * then the lookup is marked `cut` and the caller counts, logs and reports it.
 * A bulk request first asks one unsorted query per group of lookups; a group
 * whose page fills up is asked again lookup by lookup, paged.
 *
 * Files: query.ts (bodies), hit.ts (hit -> candidate), probe.ts (reach rule).
 */
import { classifyEngineFailure } from "../../engine/errors.js";
import { hasErrorCode, NeardupError } from "../../core/errors.js";
import { lookupKeysOf, type Analysis } from "../../core/fingerprinter.js";
import { LEGACY_LSH_SCHEME } from "../../core/lsh.js";
import { compareSketches, sketchOf } from "../../core/sketch.js";
import type { Verdict, VerdictOptions } from "../../core/verdict.js";
import type { Engine, SearchHit, SearchResponse } from "../../engine/types.js";
import { keptVerdict, type Candidate } from "../candidate.js";
import { candidateFromHit, hasV4Fields, hitId } from "./hit.js";
import type { DocValueReads } from "./reads.js";
import { KeyStatistics, planKeys, type KeyPlan } from "./keys.js";
import { Slicer } from "../slicer.js";
import { byTimeThenId } from "../../core/original.js";
import { lookupProbe, reaches } from "./probe.js";
import { segmentValues, type Fingerprint } from "../../core/fingerprint.js";
import { neighboursForRadius } from "../../core/neighbours.js";
import { normalize } from "../../core/normalize.js";
import { candidateQuery, firstInIdOrder, groupSearchBody, normalizedTextQuery, oldestFirstSort, segmentsNeeded, segmentTerms, sortPosition, tieQuery, windowAround, type CandidateQueryInput, type KeyGroup, type Scheme } from "./query.js";
import { mergeLengthRanges, type LengthRange } from "../../core/length-bounds.js";

export { lookupProbe, probeOf, reaches, sharesKey, type Probe } from "./probe.js";
export { KeyStatistics, planKeys, type KeyPlan } from "./keys.js";
export { DocValueReads } from "./reads.js";
export { candidateQuery, segmentTerms, segmentsNeeded, sharedSegments, windowAround, CANDIDATE_FIELDS, type Scheme } from "./query.js";

/** One candidate lookup: the text's analysis, its time, the radius, and the id to leave out. */
export interface Lookup {
  analysis: Analysis;
  time: number;
  excludeId: string | undefined;
  radius: number;
  /**
   * Only the earliest duplicate is wanted (a write's decision, which leaves
   * out `excludeId`'s own duplicates): the sketches are compared oldest first
   * up to the first duplicate, and later candidates are left `unread`. Asked
   * alone (not in a group), the lookup reads its hits oldest first and stops
   * paging at the first page that holds a duplicate (`readBefore`).
   */
  untilDuplicate?: boolean | undefined;
  /**
   * Lengths a document reached only through band keys must have (core
   * length-bounds.ts `candidateLengths` of the verdict rules): set for lookups
   * that only decide (writes, checks), whose answer holds duplicates alone.
   * Undefined: any length (a search that reports lesser similarities).
   */
  lengths?: readonly LengthRange[] | undefined;
  /**
   * Of `lengths`, those at which a document reached only through band keys must
   * share two of them (core length-bounds.ts `twoKeyLengths`); set with `lengths`.
   */
  twoKeyLengths?: readonly LengthRange[] | undefined;
  /**
   * The caller keeps duplicates alone (writes, checks, searches without a
   * minimum similarity): a candidate's text is not read when its sketch's
   * text filter shows that no rule needing it can hold (core
   * `compareSketches`).
   */
  decideOnly?: boolean | undefined;
}

/** A position in `byTimeThenId` order. */
export interface ReadPoint {
  time: number;
  id: string;
}

/** Where and how candidates are read. */
export interface CandidateSource {
  /** Index, alias or pattern read for candidates (the whole window). */
  index: string;
  /** Source field of the text (documents stored without a sketch are re-analysed from it). */
  textField: string;
  windowMs: number;
  /** Hits per page of a single lookup. */
  maxCandidates: number;
  /** Pages read per single lookup before it is marked cut. Default 10. */
  maxPages?: number | undefined;
  /** Hits read per grouped query before falling back to single lookups. Default 10,000 (the engines' result window). */
  groupPage?: number | undefined;
  /** Verdict rules: which candidates need their normalized text. Default: texts are fetched only for documents without a sketch. */
  verdict?: VerdictOptions | undefined;
  /**
   * Documents a lookup may draw through band keys taken alone (keys.ts); the
   * commoner keys must be shared two at a time. 0 or undefined: every key alone.
   */
  lshKeyBudget?: number | undefined;
  /** Where document frequencies of band keys come from (kept by the caller to cache index resolution); default: the engine, uncached. */
  keyStatistics?: KeyStatistics | undefined;
  /** Whether hits may be read from doc values only, `neardup.id` and `neardup.lsh_list` (reads.ts); default: read `_id` and `neardup.lsh`. */
  docValueReads?: DocValueReads | undefined;
  /**
   * A missing index reads as no hits (default true: a window over time-based indices loses its oldest to a
   * lifecycle policy). False for one concrete index: its absence is an error, so that the caller makes it
   * again before a write would auto-create it without the neardup mapping.
   */
  ignoreUnavailable?: boolean | undefined;
}

/** What one lookup found. */
export interface LookupResult {
  /** Reached documents in the window (not the document itself), with their sketches. */
  candidates: Candidate[];
  /** Engine hits read (before the reach rule). */
  hits: number;
  /** True when a bound was reached: some documents matching the keys were not read. */
  cut: boolean;
  /**
   * Set when an `untilDuplicate` lookup stopped paging early: every hit older
   * than this time (epoch ms) was read, and one of them is a duplicate. A
   * decision whose earliest duplicate is not older than this (one taken out
   * of the decision, e.g. by a newer version in the recent-writes window) must
   * look again without stopping.
   */
  readBefore?: number | undefined;
  /**
   * Set with `readBefore` when the lookup, read in (time, id) order (`OLDEST_FIRST_BY_ID_SORT`), stopped at
   * a duplicate of that time: every hit up to this position in `byTimeThenId` order was read too. A decision
   * whose earliest duplicate is at or before it needs no second look.
   */
  readThrough?: ReadPoint | undefined;
  /** Band keys that were too common to reach documents alone (keys.ts). */
  pairedKeys: number;
  /**
   * Set when the result is a view of the engine taken before the lookup (the window mirror, mirror.ts): the
   * time of that view, which the decision treats as the lookup's start (what the recent-writes window must add).
   */
  seenAt?: number | undefined;
  /**
   * The keys of the lookup's plan that reach a document alone, when its plan
   * paired some (keys.ts); undefined: every key does. The recent-writes window
   * applies the same rule, so it reaches what this lookup would.
   */
  alone?: ReadonlySet<string> | undefined;
}

export interface CandidateObserver {
  /** Engine hits read per lookup (or per grouped query). */
  onHits?: (hits: number) => void;
  /** A lookup reached its bound: `read` hits were read, more exist. */
  onCut?: (lookup: Lookup, read: number) => void;
  /** A lookup's plan paired some of its band keys (too common to be read alone). */
  onPaired?: (lookup: Lookup, plan: KeyPlan) => void;
  /** Key statistics could not be read: the lookups took every key alone (complete, dearer). */
  onKeyStatisticsError?: (err: unknown) => void;
}

/** Terms per field in one grouped query (engines refuse more than 65,536 by default). */
const MAX_GROUP_TERMS = 30_000;
/** Lookups per grouped query. */
const MAX_GROUP_LOOKUPS = 250;
/**
 * Leaf clauses of one grouped query's per-lookup parts: a lookup needing two
 * of its four segments has four `term` clauses; one with paired keys a `term`
 * clause per key and two for its scheme filter. Engines refuse a query of
 * over 1,024 leaf clauses by default (Lucene counts the whole tree;
 * OpenSearch `indices.query.bool.max_clause_count`); the rest is left for the
 * shared parts (segment terms, alone keys, version, window: at most 10).
 */
const MAX_GROUP_CLAUSES = 1000;
/**
 * Lookups of a grouped query whose lengths lie within this factor of each
 * other share one band-key clause, filtered by the union of their length
 * ranges (a superset of each one's; the acceptor keeps each lookup's own).
 */
const LENGTH_BIN_RATIO = 1.15;
/** Leaf clauses of one length bin's band-key clause: the terms, the scheme filter (up to 3), the length ranges (up to 4), the four segment fields. */
const BIN_CLAUSES = 12;

function lengthBin(l: Lookup): number {
  return l.lengths ? Math.floor(Math.log1p(l.analysis.length) / Math.log(LENGTH_BIN_RATIO)) : -1;
}

/** Hits read per grouped query; reaching it means "fall back to single lookups". */
const GROUP_PAGE = 10_000;
/** Pages read per single lookup by default. */
export const DEFAULT_MAX_PAGES = 10;
/**
 * Hits in the first page of a write's lookup read oldest first: among many
 * documents of one template (log lines), the oldest few hold the duplicate,
 * and reading them all was quadratic ingest. Later pages grow (`PAGE_GROWTH`)
 * to `maxCandidates`.
 */
export const OLDEST_FIRST_PAGE = 16;
/** Each later page of a lookup read oldest first is this many times the one before, up to `maxCandidates`. */
export const PAGE_GROWTH = 4;
/**
 * Writes' lookups read oldest first share their first page in groups of this
 * many (`sharedFirstPages`), lookups of one template side by side: the
 * template's oldest documents settle them all, and a search a lookup cost
 * several ms of the engine's time whatever its page held (log lines).
 */
export const SHARED_PAGE_LOOKUPS = 16;
/** Hits of a shared first page. */
export const SHARED_PAGE = 64;
/** A write's lookup with a band key held by more documents than this is asked alone, oldest first (not in a group). */
export const ALONE_BEYOND = 128;
/** Ids per normalized-text or text fetch. */
const FETCH_CHUNK = 1000;

/** The hits of a candidate search; partial results (failed shards) are an error, never a silent gap. */
function hitsOf(r: SearchResponse<unknown> | Error): SearchHit<unknown>[] {
  if (r instanceof NeardupError) throw new NeardupError(r.code, `candidate search failed: ${r.message}`, { cause: r, details: r.details });
  if (r instanceof Error) throw new NeardupError("ENGINE_ERROR", `candidate search failed: ${r.message}`, { cause: r });
  if (r._shards && r._shards.failed > 0) {
    const reason = r._shards.failures?.[0]?.reason;
    const type = reason?.type ?? "unknown";
    // Shards that are not there yet (a restart) are retryable; a query refused for its own fault is not.
    const code = classifyEngineFailure({ status: undefined, type, reason: String(reason?.reason), causes: [] }, "request");
    throw new NeardupError(code, `candidate search failed: ${r._shards.failed} of ${r._shards.total} shards failed (${type})`, {
      details: { shardFailure: type, engineErrorType: type },
    });
  }
  return r.hits.hits;
}

export function schemeOf(analysis: Analysis): Scheme {
  return { version: analysis.version, lshScheme: analysis.lshScheme ?? LEGACY_LSH_SCHEME };
}

/** Lookups (`members`, positions in `lookups`) in groups small enough for one query each. */
function groupLookups(lookups: Lookup[], plans: readonly (KeyPlan | undefined)[], members: readonly number[]): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let terms = 0;
  let clauses = 0;
  let bins = new Set<number>();
  members.forEach((i) => {
    const l = lookups[i]!;
    const two = segmentsNeeded(l.radius, l.analysis.lsh) === 2;
    const perField = two ? 0 : segmentTerms(l.analysis.simhash, l.radius)["neardup.seg0"]!.length;
    const paired = plans[i]?.paired.length ?? 0;
    const bin = lengthBin(l);
    const base = (two ? 4 : 0) + (paired >= 2 ? paired + 2 : 0);
    const own = base + (bins.has(bin) ? 0 : BIN_CLAUSES);
    if (current.length > 0 && (current.length >= MAX_GROUP_LOOKUPS || terms + perField > MAX_GROUP_TERMS || clauses + own > MAX_GROUP_CLAUSES)) {
      groups.push(current);
      current = [];
      terms = 0;
      clauses = 0;
      bins = new Set();
    }
    current.push(i);
    terms += perField;
    clauses += base + (bins.has(bin) ? 0 : BIN_CLAUSES);
    bins.add(bin);
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

function groupQuery(lookups: Lookup[], plans: readonly (KeyPlan | undefined)[], members: number[], windowMs: number, page: number, docValuesOnly: boolean): Record<string, unknown> {
  const union = new Map<string, Set<string>>();
  let since = Infinity;
  let until = -Infinity;
  const bins = new Map<number, { keys: Set<string>; pairs: string[][]; lengths: LengthRange[] | undefined; simhashes: Fingerprint[] }>();
  const twoSegments: Fingerprint[] = [];
  for (const i of members) {
    const l = lookups[i]!;
    const window = windowAround(l.time, windowMs);
    since = Math.min(since, window.since);
    until = Math.max(until, window.until);
    const plan = plans[i];
    const binKey = lengthBin(l);
    let bin = bins.get(binKey);
    if (!bin) bins.set(binKey, (bin = { keys: new Set(), pairs: [], lengths: l.lengths ? [] : undefined, simhashes: [] }));
    for (const k of plan?.alone ?? lookupKeysOf(l.analysis)) bin.keys.add(k);
    if (bin.lengths && l.lengths) bin.lengths.push(...l.lengths);
    bin.simhashes.push(l.analysis.simhash);
    if (plan) bin.pairs.push(plan.paired);
    if (segmentsNeeded(l.radius, l.analysis.lsh) === 2) {
      twoSegments.push(l.analysis.simhash);
      continue;
    }
    for (const [field, values] of Object.entries(segmentTerms(l.analysis.simhash, l.radius))) {
      let set = union.get(field);
      if (!set) union.set(field, (set = new Set()));
      for (const v of values) set.add(v);
    }
  }
  const terms = Object.fromEntries([...union].map(([field, values]) => [field, [...values]]));
  const keys: KeyGroup[] = [...bins.values()].map((b) => ({ keys: [...b.keys], pairs: b.pairs, lengths: b.lengths && mergeLengthRanges(b.lengths), simhashes: b.simhashes }));
  return groupSearchBody(terms, keys, members.map((i) => schemeOf(lookups[i]!.analysis)), since, page, twoSegments, docValuesOnly, until);
}

/** Whether a lookup alone reads its hits oldest first and stops at its first duplicate: a write's, with the verdict rules at hand. */
function readsOldestFirst(source: CandidateSource, l: Lookup): boolean {
  return l.untilDuplicate === true && source.verdict !== undefined;
}

function queryInput(source: CandidateSource, l: Lookup, plan: KeyPlan | undefined, docValuesOnly: boolean): CandidateQueryInput {
  const oldestFirst = readsOldestFirst(source, l);
  return {
    simhash: l.analysis.simhash,
    radius: l.radius,
    lsh: plan?.alone ?? lookupKeysOf(l.analysis),
    pairedLsh: plan?.paired,
    scheme: schemeOf(l.analysis),
    ...windowAround(l.time, source.windowMs),
    excludeId: l.excludeId,
    size: oldestFirst ? Math.min(OLDEST_FIRST_PAGE, source.maxCandidates) : source.maxCandidates,
    docValuesOnly,
    oldestFirst,
    lengths: l.lengths,
    twoKeyLengths: l.twoKeyLengths,
  };
}

/**
 * Keeps a lookup's candidates: reached (within the radius and sharing the
 * segments the single query asks for, or sharing an LSH key of its scheme),
 * in its window, and not itself. Grouped and single lookups give the same set.
 * With a key plan, a document reached through band keys alone must share one
 * of the plan's `alone` keys or two keys.
 */
function acceptor(l: Lookup, windowMs: number, alone: ReadonlySet<string> | undefined): (c: Candidate) => boolean {
  const probe = lookupProbe(l.analysis, l.radius, alone, l.lengths, l.twoKeyLengths);
  const { since, until } = windowAround(l.time, windowMs);
  return (c) => c.id !== l.excludeId && c.time >= since && c.time <= until && reaches(probe, c);
}

/**
 * Which hits of a grouped query each lookup of the group may reach: the
 * lookups' keys are indexed (a few thousand), and each hit looks up its own
 * keys there, so that no lookup tests every hit of the group (250 lookups x
 * 10,000 hits was a quarter of a bulk's CPU) and no map of the hits' keys is
 * built (5,000 hits x 16 keys was a tenth of it at 1M stored documents).
 * Returns, per member and in hit order, a superset of what `acceptor(l)`
 * keeps: a hit it keeps shares an LSH key with the lookup or lies within its
 * radius, and then (pigeonhole) one of its segments is among the lookup's
 * segment neighbours.
 */
export function reachableHits(lookups: readonly Lookup[], members: readonly number[], hits: readonly { simhash: Fingerprint; lsh?: readonly string[] | undefined }[]): Map<number, number[]> {
  const byLsh = new Map<string, number[]>();
  const bySegment = new Map<number, number[]>();
  const out = new Map<number, number[]>();
  for (const i of members) {
    const l = lookups[i]!;
    out.set(i, []);
    for (const key of lookupKeysOf(l.analysis)) push(byLsh, key, i);
    segmentValues(l.analysis.simhash).forEach((value, s) => {
      for (const near of neighboursForRadius(value, l.radius)) push(bySegment, s * 0x10000 + near, i);
    });
  }
  hits.forEach((hit, k) => {
    const add = (i: number) => {
      const list = out.get(i)!;
      if (list[list.length - 1] !== k) list.push(k); // hits come in order: a repeat is always the last one added
    };
    for (const key of hit.lsh ?? []) {
      const reached = byLsh.get(key);
      if (reached) for (const i of reached) add(i);
    }
    segmentValues(hit.simhash).forEach((value, s) => {
      const reached = bySegment.get(s * 0x10000 + value);
      if (reached) for (const i of reached) add(i);
    });
  });
  return out;
}

/**
 * Whether a lookup read oldest first may stop paging: `page` is its latest
 * full page, and every hit older than `before` has been read. Undefined: go on;
 * else how far the hits read are complete (`LookupResult.readBefore`, `readThrough`).
 */
type Settled = (page: SearchHit<unknown>[], before: number) => Promise<Pick<LookupResult, "readBefore" | "readThrough"> | undefined>;

/**
 * The rest of a single lookup after its first page: `search_after` pages
 * until a page is not full, `settled` says the hits read so far decide the
 * lookup (then `readBefore` is the last hit's time), or `maxPages` pages
 * were read. At each full page the hits sharing its last sort position are
 * read apart (search_after would skip those that did not fit). `before`:
 * hits read before `first` (a shared page's, `Resume`), which then goes on
 * from them.
 */
async function pageOn(
  engine: Engine,
  source: CandidateSource,
  input: CandidateQueryInput,
  first: SearchHit<unknown>[],
  settled?: Settled,
  before?: readonly SearchHit<unknown>[],
): Promise<{ hits: SearchHit<unknown>[]; cut: boolean; readBefore?: number; readThrough?: ReadPoint | undefined }> {
  const byId = new Map<string, SearchHit<unknown>>();
  for (const h of before ?? []) byId.set(idOf(h, input.docValuesOnly), h);
  const maxPages = source.maxPages ?? DEFAULT_MAX_PAGES;
  let page = first;
  let pages = 1;
  let size = input.size;
  for (;;) {
    for (const h of page) byId.set(idOf(h, input.docValuesOnly), h);
    if (page.length < size) return { hits: [...byId.values()], cut: false };
    const sort = page[page.length - 1]!.sort;
    const at = sortPosition(input, sort);
    if (!at) return { hits: [...byId.values()], cut: true };
    const before = Number(at.timestamp);
    const done = settled && Number.isFinite(before) ? await settled(page, before) : undefined;
    if (done) return { hits: [...byId.values()], cut: false, readBefore: done.readBefore, readThrough: done.readThrough };
    // Ties are read in a full page whatever this page's size: copies of one line sent in one bulk share a position
    // (time, simhash). Read by id, positions are unique, and `search_after` skips none.
    if (!(input.oldestFirst && input.docValuesOnly)) {
      const ties = hitsOf(await engine.search({ index: source.index, ignoreUnavailable: source.ignoreUnavailable ?? true, body: tieQuery({ ...input, size: source.maxCandidates }, at.timestamp, at.simhash) }).catch((e: Error) => e));
      for (const h of ties) byId.set(idOf(h, input.docValuesOnly), h);
      if (ties.length >= source.maxCandidates) return { hits: [...byId.values()], cut: true };
    }
    if (pages >= maxPages) return { hits: [...byId.values()], cut: true };
    // A first page read oldest first is short, and the next ones grow to full pages: a lookup that does not
    // settle on its first page mostly does within a few dozen hits more. Only full pages count towards `maxPages`.
    size = input.oldestFirst ? Math.min(source.maxCandidates, size * PAGE_GROWTH) : source.maxCandidates;
    page = hitsOf(await engine.search({ index: source.index, ignoreUnavailable: source.ignoreUnavailable ?? true, body: candidateQuery({ ...input, size, searchAfter: sort }) }).catch((e: Error) => e));
    if (size === source.maxCandidates) pages += 1;
  }
}

/** A hit read from doc values only is of a document written before contract v4: read again with `_id` and `neardup.lsh`. */
class BeforeV4 extends Error {}

/** The hit's id; throws `BeforeV4` when the read was doc values only and the hit lacks a v4 field. */
function idOf(hit: SearchHit<unknown>, docValuesOnly: boolean | undefined): string {
  const id = hitId(hit);
  if (id === undefined || (docValuesOnly && !hasV4Fields(hit))) throw new BeforeV4("a candidate hit of a document before contract v4");
  return id;
}

/**
 * Shard failures of an index deleted while it was searched (a lifecycle policy
 * at work; between the query and fetch phases it is a missing search context):
 * asking again no longer sees it.
 */
const VANISHED = new Set(["no_shard_available_action_exception", "index_not_found_exception", "shard_not_found_exception", "search_context_missing_exception"]);
const ATTEMPTS = 3;

/**
 * Candidates within each lookup's radius (or sharing an LSH key of its
 * scheme), in its window and of its fingerprint scheme, with what the
 * re-rank needs; `cut` says when a lookup's bound was reached. A search that
 * meets an index being deleted is asked again (up to 3 times); any other
 * shard failure is an error, never a silently partial answer.
 */
export async function fetchCandidates(engine: Engine, source: CandidateSource, lookups: Lookup[], observer: CandidateObserver = {}): Promise<LookupResult[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchReadingDocValues(engine, source, lookups, observer);
    } catch (err) {
      const failure = err instanceof NeardupError ? (err.details as { shardFailure?: string } | undefined)?.shardFailure : undefined;
      if (attempt >= ATTEMPTS || failure === undefined || !VANISHED.has(failure)) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/** One fetch from doc values only when `source.docValueReads` allows; again with `_id` and `neardup.lsh` when a hit is of a document before v4. */
async function fetchReadingDocValues(engine: Engine, source: CandidateSource, lookups: Lookup[], observer: CandidateObserver): Promise<LookupResult[]> {
  const fromDocValues = source.docValueReads?.fromDocValues() ?? false;
  if (!fromDocValues) return fetchOnce(engine, source, lookups, observer, false);
  try {
    return await fetchOnce(engine, source, lookups, observer, true);
  } catch (err) {
    if (!(err instanceof BeforeV4)) throw err;
    source.docValueReads!.olderSeen();
    return fetchOnce(engine, source, lookups, observer, false);
  }
}

async function fetchOnce(engine: Engine, source: CandidateSource, lookups: Lookup[], observer: CandidateObserver, docValuesOnly: boolean): Promise<LookupResult[]> {
  const out: LookupResult[] = lookups.map(() => ({ candidates: [], hits: 0, cut: false, pairedKeys: 0 }));
  if (lookups.length === 0) return out;
  const stats = source.keyStatistics ?? new KeyStatistics(engine, source.index);
  // While no plan has paired a key lately, the first query goes out with every key alone, beside the statistics
  // request instead of after it: its hits hold the planned ones, and the plans' reach rule keeps exactly those.
  // Writes while lookups draw many candidates wait for the statistics: they tell which lookups to ask alone.
  const writes = source.verdict !== undefined && lookups.some((l) => l.untilDuplicate);
  const speculative = stats.speculative(source.lshKeyBudget ?? 0) && !(writes && stats.drewAtLeast(ALONE_BEYOND));
  const statistics = keyPlans(engine, { ...source, keyStatistics: stats }, lookups, observer);
  const planned = statistics.then((s) => s.plans);
  const unplanned = lookups.map(() => undefined);
  let plans: (KeyPlan | undefined)[] = speculative ? unplanned : await planned;
  const singles: number[] = [];
  /** Lookups a shared first page did not settle: where their own reading goes on (`sharedFirstPages`). */
  const resumes = new Map<number, Resume>();
  /** The single lookup's first page when it was asked before its plan was known and that page holds every hit. */
  let early: { input: CandidateQueryInput; hits: SearchHit<unknown>[] } | undefined;
  if (lookups.length === 1) {
    singles.push(0);
    if (speculative) {
      const input = queryInput(source, lookups[0]!, undefined, docValuesOnly);
      const [p, r] = await Promise.all([planned, engine.search({ index: source.index, ignoreUnavailable: source.ignoreUnavailable ?? true, body: candidateQuery(input) }).catch((e: Error) => e)]);
      plans = p;
      const hits = hitsOf(r);
      // Without pairs the plan asks the same query; with pairs, an unfilled page already holds all that the plan reaches.
      if (plans[0] === undefined || hits.length < input.size) early = { input, hits };
    }
  } else {
    const page = source.groupPage ?? GROUP_PAGE;
    // A write's lookup with a key held by many documents (a template: log lines) is asked alone, read oldest
    // first and stopped at its first duplicate: in a group its hits would be all the template's documents.
    const { widest, hottest } = speculative ? { widest: lookups.map(() => 0), hottest: [] } : await statistics;
    const members: number[] = [];
    const oldestFirst: number[] = [];
    for (const [i, l] of lookups.entries()) {
      if (readsOldestFirst(source, l) && (plans[i] !== undefined || widest[i]! > ALONE_BEYOND)) oldestFirst.push(i);
      else members.push(i);
    }
    const groups = groupLookups(lookups, plans, members);
    const asked = groups.length === 0 ? Promise.resolve([]) : engine.msearch(groups.map((g) => ({ index: source.index, ignoreUnavailable: source.ignoreUnavailable ?? true, body: groupQuery(lookups, plans, g, source.windowMs, page, docValuesOnly) })));
    const shared = sharedFirstPages(engine, source, lookups, plans, oldestFirst, hottest, docValuesOnly, observer, out, resumes);
    const [responses, p, unsettled] = await Promise.all([asked, planned, shared]);
    singles.push(...unsettled);
    plans = p; // the same plans when not speculative; else a group's hits hold what its plans reach, and `acceptor` keeps that
    const overflowed: number[] = [];
    responses.forEach((r, gi) => {
      const hits = hitsOf(r);
      observer.onHits?.(hits.length);
      const members = groups[gi]!;
      if (hits.length >= page) {
        overflowed.push(...members); // too many to be sure we saw them all: ask per lookup, paged
        return;
      }
      for (const [i, result] of memberResults(source, lookups, plans, members, hits, docValuesOnly)) out[i] = result;
    });
    // Writes of a group that held too many (asked before their statistics came: a fresh service among log lines)
    // share first pages read oldest first, as writes with a common key do.
    const writes = overflowed.filter((i) => readsOldestFirst(source, lookups[i]!));
    singles.push(...overflowed.filter((i) => !readsOldestFirst(source, lookups[i]!)));
    if (writes.length > 0) singles.push(...(await sharedFirstPages(engine, source, lookups, plans, writes, (await statistics).hottest, docValuesOnly, observer, out, resumes)));
  }
  if (singles.length > 0) {
    const inputs = singles.map((i) => (early ? early.input : queryInput(source, lookups[i]!, plans[i], docValuesOnly)));
    const requests = inputs.map((input, k) => {
      const resume = resumes.get(singles[k]!);
      return { index: source.index, ignoreUnavailable: source.ignoreUnavailable ?? true, body: candidateQuery(resume ? { ...input, searchAfter: resume.after } : input) };
    });
    const firsts = early ? [early.hits] : (singles.length === 1 ? [await engine.search(requests[0]!)] : await engine.msearch(requests)).map(hitsOf);
    await Promise.all(
      firsts.map(async (first, k) => {
        const i = singles[k]!;
        const l = lookups[i]!;
        const alone = aloneOf(plans[i]);
        const accept = acceptor(l, source.windowMs, alone);
        // A hit's candidate is made once: the early stop's comparisons stay on it for the re-rank.
        const made = new Map<SearchHit<unknown>, Candidate | undefined>();
        const candidateOf = (h: SearchHit<unknown>) => {
          if (!made.has(h)) made.set(h, candidateFromHit(h));
          return made.get(h);
        };
        const input = inputs[k]!;
        const settled = input.oldestFirst ? duplicateFound(engine, source, l, (page) => page.flatMap((h) => candidateOf(h) ?? []).filter(accept), input.docValuesOnly === true) : undefined;
        const { hits, cut, readBefore, readThrough } = await pageOn(engine, source, input, first, settled, resumes.get(i)?.hits);
        observer.onHits?.(hits.length);
        if (cut) observer.onCut?.(l, hits.length);
        out[i] = { candidates: hits.flatMap((h) => candidateOf(h) ?? []).filter(accept), hits: hits.length, cut, pairedKeys: plans[i]?.paired.length ?? 0, alone, readBefore, readThrough };
      }),
    );
  }
  for (const r of out) observeDrawn(stats, source.lshKeyBudget ?? 0, r);
  await fillTexts(engine, source, lookups, out);
  return out;
}

/**
 * Tells the key statistics what one lookup drew (`KeyStatistics.observe`), which keeps them on or off; the
 * window mirror's lookups count the same way (dedup-service.ts).
 */
export function observeDrawn(stats: KeyStatistics, budget: number, r: LookupResult): void {
  // A lookup that stopped at its first duplicate drew few of what its keys hold: it counts as a wide one.
  const drew = r.readBefore !== undefined ? Math.max(ALONE_BEYOND, r.candidates.length) : r.candidates.length;
  stats.observe(r.pairedKeys > 0 ? Math.max(budget, drew) : drew, r.pairedKeys > 0);
}

/**
 * Where a lookup that a shared page did not settle goes on reading: after the
 * page's last sort position below its final one (`after`, the hits at the
 * final position may not all have fitted), with the page's hits up to there
 * read already (`hits`; the lookup's acceptor keeps its own). Every hit of
 * the lookup up to `after` is among them: the page holds its union's first
 * hits.
 */
interface Resume {
  hits: SearchHit<unknown>[];
  after: unknown[];
}

/** The resume point of a full shared page whose last hit is at `last`; undefined when every hit shares that position. */
function resumeBelow(hits: readonly SearchHit<unknown>[], last: { timestamp: unknown; simhash: unknown }): Resume | undefined {
  for (let k = hits.length - 1; k >= 0; k--) {
    const at = sortPosition({ oldestFirst: true }, hits[k]!.sort);
    if (!at) return undefined;
    if (at.timestamp !== last.timestamp || at.simhash !== last.simhash) return { hits: hits.slice(0, k + 1), after: hits[k]!.sort! };
  }
  return undefined;
}

/**
 * The first pages of writes' lookups read oldest first (`oldestFirst`,
 * positions in `lookups`), shared: lookups side by side by their most common
 * key (lines of one template together), in groups of `SHARED_PAGE_LOOKUPS`,
 * one grouped query each, sorted oldest first, of `SHARED_PAGE` hits. A page
 * that is not full holds every hit of its lookups: they are complete. From a
 * full page each lookup takes the hits it reaches, which are its own first
 * hits oldest first up to the page's last: it is settled when they hold a
 * duplicate older than that hit (the rule of `pageOn`, with the same
 * `readBefore`). Results go to `out`; returns the lookups not settled, to be
 * asked alone from where the page leaves them (`resumes`).
 */
async function sharedFirstPages(
  engine: Engine,
  source: CandidateSource,
  lookups: Lookup[],
  plans: readonly (KeyPlan | undefined)[],
  oldestFirst: readonly number[],
  hottest: readonly string[],
  docValuesOnly: boolean,
  observer: CandidateObserver,
  out: LookupResult[],
  resumes: Map<number, Resume>,
): Promise<number[]> {
  if (oldestFirst.length < 2) return [...oldestFirst];
  const byKey = [...oldestFirst].sort((a, b) => ((hottest[a] ?? "") < (hottest[b] ?? "") ? -1 : (hottest[a] ?? "") > (hottest[b] ?? "") ? 1 : a - b));
  const groups = groupLookups(lookups, plans, byKey).flatMap((g) => {
    const parts: number[][] = [];
    for (let k = 0; k < g.length; k += SHARED_PAGE_LOOKUPS) parts.push(g.slice(k, k + SHARED_PAGE_LOOKUPS));
    return parts;
  });
  const size = SHARED_PAGE;
  const responses = await engine.msearch(
    groups.map((g) => ({ index: source.index, ignoreUnavailable: source.ignoreUnavailable ?? true, body: { ...groupQuery(lookups, plans, g, source.windowMs, size, docValuesOnly), sort: oldestFirstSort(docValuesOnly) } })),
  );
  const rest: number[] = [];
  await Promise.all(
    responses.map(async (r, gi) => {
      const hits = hitsOf(r);
      observer.onHits?.(hits.length);
      const members = groups[gi]!;
      const full = hits.length >= size;
      const last = full ? sortPosition({ oldestFirst: true }, hits[hits.length - 1]!.sort) : undefined;
      const before = last ? Number(last.timestamp) : NaN;
      const resume = last && resumeBelow(hits, last);
      for (const [i, result] of memberResults(source, lookups, plans, members, hits, docValuesOnly)) {
        const done = full && Number.isFinite(before) ? await duplicateFound(engine, source, lookups[i]!, () => result.candidates, docValuesOnly)([], before) : undefined;
        if (!full) out[i] = result;
        else if (done) out[i] = { ...result, ...done };
        else {
          if (resume) resumes.set(i, resume);
          rest.push(i);
        }
      }
    }),
  );
  return rest;
}

/**
 * Each member's result from the hits of one grouped query: the hits it
 * reaches (`reachableHits`) that its acceptor keeps, each its own copy.
 */
function memberResults(
  source: CandidateSource,
  lookups: Lookup[],
  plans: readonly (KeyPlan | undefined)[],
  members: readonly number[],
  hits: SearchHit<unknown>[],
  docValuesOnly: boolean,
): [number, LookupResult][] {
  if (docValuesOnly) for (const h of hits) idOf(h, true);
  const candidates = hits.flatMap((h) => candidateFromHit(h) ?? []);
  const reachable = reachableHits(lookups, members, candidates);
  return members.map((i) => {
    const alone = aloneOf(plans[i]);
    const accept = acceptor(lookups[i]!, source.windowMs, alone);
    const kept = reachable.get(i)!.filter((k) => accept(candidates[k]!));
    return [i, { candidates: kept.map((k) => ({ ...candidates[k]! })), hits: hits.length, cut: false, pairedKeys: plans[i]?.paired.length ?? 0, alone }];
  });
}

/** The keys a plan takes alone; undefined (every key) without a plan. */
function aloneOf(plan: KeyPlan | undefined): ReadonlySet<string> | undefined {
  return plan ? new Set(plan.alone) : undefined;
}

/**
 * Each lookup's key plan (keys.ts) from one term-statistics request for all
 * their band keys; undefined (every key alone) for a plan that pairs nothing,
 * when the rule is off or its statistics are not wanted now, and, after
 * telling the observer, when the statistics cannot be read. `widest`: the
 * most documents any one of a lookup's keys is held by (0 without statistics);
 * `hottest`: that key (empty without statistics).
 */
export async function keyPlans(engine: Engine, source: CandidateSource, lookups: Lookup[], observer: CandidateObserver): Promise<{ plans: (KeyPlan | undefined)[]; widest: number[]; hottest: string[] }> {
  const budget = source.lshKeyBudget ?? 0;
  const none = { plans: lookups.map(() => undefined), widest: lookups.map(() => 0), hottest: [] };
  const stats = source.keyStatistics ?? new KeyStatistics(engine, source.index);
  if (!stats.wanted(budget)) return none;
  const keys = new Set<string>();
  for (const l of lookups) for (const k of lookupKeysOf(l.analysis)) keys.add(k);
  let frequencies: Map<string, number>;
  try {
    frequencies = await stats.frequencies([...keys]);
  } catch (err) {
    observer.onKeyStatisticsError?.(err);
    return none;
  }
  const plans = lookups.map((l) => {
    const plan = planKeys(lookupKeysOf(l.analysis), frequencies, budget);
    if (plan.paired.length === 0) return undefined;
    observer.onPaired?.(l, plan);
    return plan;
  });
  const widest: number[] = [];
  const hottest: string[] = [];
  for (const l of lookups) {
    let most = 0;
    let key = "";
    for (const k of lookupKeysOf(l.analysis)) {
      const n = frequencies.get(k) ?? 0;
      if (n > most || (n === most && k < key)) [most, key] = [n, k];
    }
    widest.push(most);
    hottest.push(key);
  }
  return { plans, widest, hottest };
}

/**
 * Reads what the sketches alone cannot decide: the normalized text of a
 * sketched candidate whose pair needs the edit rule (its text field, read
 * with `_source` filtering and normalized here; or `neardup.normalized` doc
 * values, which documents written before 0.4 carry), and the source text of
 * a candidate stored without a sketch (before contract v3), from the
 * concrete index that holds it. Each sketched candidate is compared with its
 * lookup here; a verdict that needed no text is kept on the candidate, and
 * the re-rank takes it instead of comparing the pair again. A lookup that
 * wants only the earliest duplicate (`untilDuplicate`) stops comparing at it:
 * with reposts, most candidates of a lookup are duplicates of it.
 */
export async function fillTexts(engine: Engine, source: CandidateSource, lookups: readonly Lookup[], out: LookupResult[]): Promise<void> {
  const needNormalized: Candidate[] = [];
  const needText = new Map<string, Map<string, Candidate[]>>();
  // A bulk's lookups times their candidates can be many thousands of comparisons: they yield to the event loop.
  const slicer = new Slicer();
  for (const [i, result] of out.entries()) {
    const l = lookups[i]!;
    const compare = source.verdict ? sketchComparer(l, source.verdict) : undefined;
    const candidates = l.untilDuplicate ? [...result.candidates].sort(byTimeThenId) : result.candidates;
    let found = false;
    for (const c of candidates) {
      if (slicer.due) await slicer.yield();
      if (c.sketch) {
        if (!compare) continue;
        if (found) {
          c.unread = true;
          continue;
        }
        const verdict = compare(c);
        if (verdict !== undefined) {
          if (stopsDecision(l, c, verdict)) found = true;
          continue;
        }
        needNormalized.push(c);
      } else {
        const index = c.index ?? source.index;
        let ids = needText.get(index);
        if (!ids) needText.set(index, (ids = new Map()));
        push(ids, c.id, c);
      }
    }
  }
  await readNormalizedTexts(engine, source, needNormalized, slicer);
  for (const [index, byId] of needText) {
    const all = [...byId.keys()];
    for (let k = 0; k < all.length; k += FETCH_CHUNK) {
      // The index may have been deleted since the search (a lifecycle policy): its documents are gone.
      const texts = await engine.mget<Record<string, unknown>>(index, all.slice(k, k + FETCH_CHUNK), [source.textField]).catch((err: unknown) => {
        if (hasErrorCode(err, "NOT_FOUND")) return new Map<string, Record<string, unknown>>();
        throw err;
      });
      for (const [id, doc] of texts) {
        const text = doc[source.textField];
        if (typeof text === "string") for (const c of byId.get(id) ?? []) c.text = text;
      }
    }
  }
}

/**
 * Compares a lookup's analysis with a sketched candidate (core
 * `compareSketches`) and keeps the verdict on the candidate, where the
 * re-rank takes it instead of comparing the pair again; a verdict kept
 * earlier for this analysis is reused. Undefined: the pair needs the
 * candidate's text, which it does not carry yet.
 */
function sketchComparer(l: Lookup, options: VerdictOptions): (c: Candidate) => Verdict | undefined {
  const query = { simhash: l.analysis.simhash, sketch: sketchOf(l.analysis, Infinity) };
  const decideOnly = l.decideOnly === true;
  return (c) => {
    const kept = keptVerdict(c, l.analysis, options, decideOnly);
    if (kept) return kept;
    const verdict = compareSketches(query, { simhash: c.simhash, sketch: c.sketch! }, options, decideOnly);
    if (verdict !== undefined) c.verdict = { of: l.analysis, options, verdict, decideOnly };
    return verdict;
  };
}

/** Whether this verdict on `c` settles a write's decision: a duplicate that is not one of the document's own duplicates (an update of an original; those do not stop it). */
function stopsDecision(l: Lookup, c: Candidate, verdict: Verdict): boolean {
  return l.untilDuplicate === true && verdict.duplicate && (l.excludeId === undefined || c.duplicateOf !== l.excludeId);
}

/**
 * The early stop of a write's lookup read oldest first (`pageOn`'s
 * `settled`): each full page's candidates (`candidatesOf`, the reached ones)
 * are compared oldest first up to the first duplicate, their texts read where
 * the edit rule needs them. The lookup may stop once a duplicate older than
 * the page's last hit has been found: every hit older than that was read, so
 * the decision's earliest duplicate is among them. Read in (time, id) order
 * (`byId`), it may stop at its first duplicate whatever the page's last hit,
 * when that duplicate's id sorts the same in the engine (`firstInIdOrder`):
 * every hit before it in `byTimeThenId` order was read (audit 18, F4: copies
 * written in one bulk share their time, and each lookup read them all).
 */
function duplicateFound(engine: Engine, source: CandidateSource, l: Lookup, candidatesOf: (page: SearchHit<unknown>[]) => Candidate[], byId: boolean): Settled {
  const compare = sketchComparer(l, source.verdict!);
  /** The earliest duplicate found, in `byTimeThenId` order. */
  let first: Candidate | undefined;
  const found = (c: Candidate) => {
    if (first === undefined || byTimeThenId(c, first) < 0) first = c;
  };
  return async (page, before) => {
    const slicer = new Slicer();
    const needNormalized: Candidate[] = [];
    for (const c of candidatesOf(page).sort(byTimeThenId)) {
      if (slicer.due) await slicer.yield();
      if (!c.sketch) continue; // stored before contract v3: analysed at re-rank time, never settles the lookup here
      const verdict = compare(c);
      if (verdict === undefined) needNormalized.push(c);
      else if (stopsDecision(l, c, verdict)) {
        found(c);
        break;
      }
    }
    await readNormalizedTexts(engine, source, needNormalized, slicer);
    for (const c of needNormalized) {
      if (slicer.due) await slicer.yield();
      const verdict = c.sketch?.text === undefined ? undefined : compare(c);
      if (verdict && stopsDecision(l, c, verdict)) {
        found(c); // oldest first: the later ones cannot be earlier
        break;
      }
    }
    if (first === undefined) return undefined;
    if (first.time < before) return { readBefore: before };
    if (byId && firstInIdOrder(first.id)) return { readBefore: first.time, readThrough: { time: first.time, id: first.id } };
    return undefined;
  };
}

/**
 * Sets the normalized text on the sketches of `candidates` (sketched ones
 * whose pair needs the edit rule), read by id from the window; a document
 * that is gone keeps none.
 */
export async function readNormalizedTexts(engine: Engine, source: Pick<CandidateSource, "index" | "textField">, candidates: readonly Candidate[], slicer = new Slicer()): Promise<void> {
  const byId = new Map<string, Candidate[]>();
  for (const c of candidates) push(byId, c.id, c);
  const ids = [...byId.keys()];
  for (let k = 0; k < ids.length; k += FETCH_CHUNK) {
    const body = normalizedTextQuery(ids.slice(k, k + FETCH_CHUNK), source.textField);
    const hits = hitsOf(await engine.search({ index: source.index, ignoreUnavailable: true, body }).catch((e: Error) => e));
    for (const h of hits) {
      if (slicer.due) await slicer.yield();
      const text = normalizedTextOf(h, source.textField);
      if (text === undefined) continue;
      for (const c of byId.get(h._id) ?? []) {
        c.sketch = { ...c.sketch!, text };
        c.unread = false;
      }
    }
  }
}

/** A hit's normalized text: the stored `neardup.normalized` (before 0.4), else its text field normalized as at index time. */
function normalizedTextOf(hit: SearchHit<unknown>, textField: string): string | undefined {
  const stored = hit.fields?.["neardup.normalized"]?.[0];
  if (typeof stored === "string") return Buffer.from(stored, "base64").toString("utf8");
  const text = (hit._source as Record<string, unknown> | undefined)?.[textField];
  return typeof text === "string" ? normalize(text) : undefined;
}

function push<K, T>(map: Map<K, T[]>, key: K, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
