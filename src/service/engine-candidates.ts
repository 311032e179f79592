/**
 * Candidate retrieval from the engine for one or many lookups.
 *
 * One lookup: one segment query (see candidates.ts). Many lookups (a bulk):
 * the lookups are grouped, and each group becomes ONE query whose `terms`
 * clauses hold the union of the group's segment values; the hits are then
 * assigned to lookups in TypeScript by Hamming distance and time. Per-query
 * overhead in the engine dwarfs the cost of a few more terms, so this is
 * several times cheaper than one query per document (bench/service.ts). A
 * group whose hits reach the page size falls back to one query per lookup,
 * so no candidate is ever lost to the cap. Survivors' texts come from one `_mget`.
 */
import { NeardupError } from "../core/errors.js";
import type { Analysis } from "../core/fingerprinter.js";
import { classifyEngineFailure } from "../engine/errors.js";
import type { Engine, SearchHit, SearchRequest, SearchResponse } from "../engine/types.js";
import type { Candidate } from "./candidate.js";
import { candidateQuery, candidateSearchBody, segmentTerms } from "./candidates.js";
import { candidateFromHit } from "./documents.js";
import { probeOf, reaches, type Probe } from "./probe.js";

export interface Lookup {
  analysis: Analysis;
  /** Document time, epoch ms: candidates must be within the window before it. */
  time: number;
  excludeId: string | undefined;
  radius: number;
}

export interface CandidateSource {
  index: string;
  textField: string;
  windowMs: number;
  /** Most hits read per single lookup. */
  maxCandidates: number;
  /** Hits read per grouped query before falling back to single lookups. Default 10,000 (the engines' result window). */
  groupPage?: number;
}

/** Terms per field in one grouped query (engines refuse more than 65,536 by default). */
const MAX_GROUP_TERMS = 30_000;
/** Lookups per grouped query. */
const MAX_GROUP_LOOKUPS = 250;
/** Hits read per grouped query; reaching it means "fall back to single lookups". */
const GROUP_PAGE = 10_000;

/**
 * A candidate search's hits. A failed search keeps its class (an overloaded
 * or recovering engine is ENGINE_UNAVAILABLE, retryable); a search that saw
 * only some shards is an error too, since the candidates on the others would be missed.
 */
function hitsOf(r: SearchResponse<unknown> | Error): SearchHit<unknown>[] {
  if (r instanceof NeardupError) throw new NeardupError(r.code, `candidate search failed: ${r.message}`, { cause: r, details: r.details });
  if (r instanceof Error) throw new NeardupError("ENGINE_ERROR", `candidate search failed: ${r.message}`, { cause: r });
  const failed = r._shards?.failed ?? 0;
  if (failed > 0) {
    const type = r._shards?.failures?.[0]?.reason?.type ?? "unknown";
    const code = classifyEngineFailure({ status: undefined, type, reason: String(r._shards?.failures?.[0]?.reason?.reason), causes: [] }, "request");
    throw new NeardupError(code, `candidate search failed: ${failed} of ${r._shards!.total} shards failed (${type})`, { details: { engineErrorType: type } });
  }
  return r.hits.hits;
}

/** Lookups in groups small enough for one query each. */
function groupLookups(lookups: Lookup[]): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let terms = 0;
  lookups.forEach((l, i) => {
    const perField = segmentTerms(l.analysis.simhash, l.radius)["neardup.seg0"]!.length;
    if (current.length > 0 && (current.length >= MAX_GROUP_LOOKUPS || terms + perField > MAX_GROUP_TERMS)) {
      groups.push(current);
      current = [];
      terms = 0;
    }
    current.push(i);
    terms += perField;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

function groupQuery(lookups: Lookup[], members: number[], windowMs: number, page: number): Record<string, unknown> {
  const union = new Map<string, Set<string>>();
  let since = Infinity;
  const keys = new Set<string>();
  for (const i of members) {
    const l = lookups[i]!;
    since = Math.min(since, l.time - windowMs);
    for (const k of l.analysis.lsh) keys.add(k);
    for (const [field, values] of Object.entries(segmentTerms(l.analysis.simhash, l.radius))) {
      let set = union.get(field);
      if (!set) union.set(field, (set = new Set()));
      for (const v of values) set.add(v);
    }
  }
  const terms = Object.fromEntries([...union].map(([field, values]) => [field, [...values]]));
  return candidateSearchBody(terms, [...keys], since, page);
}

function singleRequest(source: CandidateSource, l: Lookup): SearchRequest {
  return {
    index: source.index,
    body: candidateQuery({
      simhash: l.analysis.simhash,
      radius: l.radius,
      lsh: l.analysis.lsh,
      since: l.time - source.windowMs,
      excludeId: l.excludeId,
      size: source.maxCandidates,
    }),
  };
}

/** Keeps a lookup's candidates: reached (radius or LSH key), in its window, and not itself. */
function acceptor(l: Lookup, windowMs: number): (c: Candidate) => boolean {
  const probe: Probe = probeOf(l.analysis, l.radius);
  const since = l.time - windowMs;
  return (c) => c.id !== l.excludeId && c.time >= since && reaches(probe, c);
}

/**
 * Candidates within each lookup's radius and window, with their texts.
 * `onHits` receives the number of engine hits per query (for metrics).
 */
export async function fetchCandidates(engine: Engine, source: CandidateSource, lookups: Lookup[], onHits?: (hits: number) => void): Promise<Candidate[][]> {
  const out: Candidate[][] = lookups.map(() => []);
  if (lookups.length === 0) return out;
  const singles: number[] = [];
  if (lookups.length === 1) singles.push(0);
  else {
    const page = source.groupPage ?? GROUP_PAGE;
    const groups = groupLookups(lookups);
    const responses = await engine.msearch(groups.map((g) => ({ index: source.index, body: groupQuery(lookups, g, source.windowMs, page) })));
    responses.forEach((r, gi) => {
      const hits = hitsOf(r);
      onHits?.(hits.length);
      const members = groups[gi]!;
      if (hits.length >= page) {
        singles.push(...members); // too many to be sure we saw them all: ask per lookup
        return;
      }
      const candidates = hits.flatMap((h) => candidateFromHit(h) ?? []);
      for (const i of members) out[i] = candidates.filter(acceptor(lookups[i]!, source.windowMs)).map((c) => ({ ...c }));
    });
  }
  if (singles.length > 0) {
    const requests = singles.map((i) => singleRequest(source, lookups[i]!));
    const responses = singles.length === 1 ? [await engine.search(requests[0]!)] : await engine.msearch(requests);
    responses.forEach((r, k) => {
      const hits = hitsOf(r);
      onHits?.(hits.length);
      const l = lookups[singles[k]!]!;
      out[singles[k]!] = hits.flatMap((h) => candidateFromHit(h) ?? []).filter(acceptor(l, source.windowMs));
    });
  }
  const ids = [...new Set(out.flat().map((c) => c.id))];
  if (ids.length > 0) {
    const texts = await engine.mget<Record<string, unknown>>(source.index, ids, [source.textField]);
    for (const c of out.flat()) {
      const text = texts.get(c.id)?.[source.textField];
      if (typeof text === "string") c.text = text;
    }
  }
  return out;
}
