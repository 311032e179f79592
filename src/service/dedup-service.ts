/**
 * The dedup service: fingerprint -> candidates (engine + recent-writes window)
 * -> re-rank -> verdict -> write.
 *
 * First one wins: candidates are fetched from the engine outside any lock (one
 * `_msearch` per request), then every decision is taken inside one mutex, in
 * arrival order (within a bulk: by time, then id), against the engine's hits
 * plus the recent-writes window. A decided document enters the window before
 * the mutex is released, so a near-duplicate arriving a moment later (in
 * another request, or later in the same bulk) sees it even though the engine
 * cannot show it yet. Writes run after the mutex; a failed write is taken out
 * of the window again, and a document is acknowledged only once the engine
 * has accepted it.
 */
import { Mutex } from "async-mutex";
import { NeardupError } from "../core/errors.js";
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { bucketFor } from "../core/verdict.js";
import type { Engine } from "../engine/types.js";
import componentTemplate from "../../mappings/component-template.neardup.json" with { type: "json" };
import type { Candidate } from "./candidate.js";
import { documentSource, getDocument, writeDocuments, type Decision } from "./documents.js";
import { fetchCandidates, probeOf, type Lookup, type LookupResult } from "./candidates/index.js";
import type { DocInput } from "./input.js";
import type { DedupMetrics } from "./metrics.js";
import type { DedupOptions, Policy } from "./options.js";
import { chooseOriginal, compareCandidates, rankMatches, type Match } from "./rank.js";
import { RecentWrites } from "./recent.js";

/** Why a match was made, as the API reports it. */
export interface MatchReport {
  id: string;
  status: string;
  duplicate: boolean;
  distance: number;
  similarity: number;
  cosine: number;
  edit_similarity: number | null;
  char_cosine: number | null;
  rule: string | null;
  bucket: string;
}

export interface CheckResult {
  status: "original" | "duplicate";
  duplicate_of: string | null;
  distance: number | null;
  similarity: number | null;
  reason: string | null;
  matches: MatchReport[];
  candidates: number;
  /** True when the candidate lookup reached its bound: documents sharing the fewest keys were not read. */
  candidates_cut: boolean;
}

/** One document's outcome. `action` says what was done with it. */
export interface IndexResult {
  id: string;
  status: "original" | "duplicate";
  action: "indexed" | "skipped" | "rejected";
  duplicate_of: string | null;
  distance: number | null;
  similarity: number | null;
  reason: string | null;
}

type Item = { doc: DocInput; analysis: Analysis; position: number };

function report(m: Match): MatchReport {
  return {
    id: m.candidate.id,
    status: m.candidate.status,
    duplicate: m.verdict.duplicate,
    distance: m.verdict.distance,
    similarity: round(m.similarity),
    cosine: round(m.verdict.cosine),
    edit_similarity: m.verdict.editSimilarity === null ? null : round(m.verdict.editSimilarity),
    char_cosine: m.verdict.charCosine === null ? null : round(m.verdict.charCosine),
    rule: m.verdict.rule,
    bucket: m.verdict.bucket,
  };
}

/** `<alias>-NNNNNN`, one past the highest number behind the alias (rollover's own naming). */
function nextIndexName(alias: string, behind: { index: string }[]): string {
  let n = 0;
  for (const b of behind) {
    const m = /-(\d+)$/.exec(b.index);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return `${alias}-${String(n + 1).padStart(6, "0")}`;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

export class DedupService {
  private readonly recent: RecentWrites;
  private readonly mutex = new Mutex();

  constructor(
    private readonly engine: Engine,
    private readonly fingerprinter: Fingerprinter,
    readonly options: DedupOptions,
    private readonly metrics?: DedupMetrics,
    private readonly log?: { warn(details: object, message: string): void },
  ) {
    this.recent = new RecentWrites(options.recentWindowMs);
  }

  /**
   * Creates the index (neardup mapping plus a text field) when it does not
   * exist; on an existing index, adds any neardup field it lacks (an index made
   * under contract v1 or v2 gets `neardup.lsh`, `lsh_scheme`, `sketch`,
   * `normalized`: an in-place upgrade, older documents keep working) and leaves
   * the user's fields alone. A conflicting neardup mapping is refused by the
   * engine with an error naming the field. With `rollover`, `index` is a write
   * alias: every index behind it gets the mapping, and when none is the write
   * index (a lifecycle policy deleted it), the next `<alias>-NNNNNN` is created.
   */
  async ensureIndex(): Promise<void> {
    const mappings = structuredClone(componentTemplate.template.mappings) as { properties: Record<string, unknown> };
    const { index, rollover } = this.options;
    if (rollover) {
      const behind = await this.engine.aliasIndices(index);
      if (behind.length > 0) await this.engine.putMapping(index, mappings);
      if (behind.some((b) => b.writeIndex)) return;
      if (behind.length === 0 && (await this.engine.indexExists(index))) {
        throw new NeardupError("INVALID_CONFIG", `${index} is an index, not an alias: with rollover, NEARDUP_INDEX names the write alias`, { field: "index" });
      }
      mappings.properties[this.options.textField] = { type: "text" };
      await this.engine.createIndex(nextIndexName(index, behind), { aliases: { [index]: { is_write_index: true } }, mappings });
      return;
    }
    if (await this.engine.indexExists(index)) {
      await this.engine.putMapping(index, mappings); // the user's own fields are left alone
      return;
    }
    mappings.properties[this.options.textField] = { type: "text" };
    await this.engine.createIndex(index, { mappings });
  }

  /** The Hamming radius searched for a text of this length (its verdict bucket's). */
  radiusFor(analysis: Analysis): number {
    return bucketFor(this.fingerprinter.verdictOptions, analysis.length).searchRadius;
  }

  analyze(text: string, field: string): Analysis {
    return this.fingerprinter.analyze(text, field);
  }

  private engineCandidates(lookups: Lookup[]): Promise<LookupResult[]> {
    const source = { ...this.options, maxPages: this.options.maxCandidatePages, verdict: this.fingerprinter.verdictOptions };
    return fetchCandidates(this.engine, source, lookups, {
      onHits: (hits) => this.metrics?.engineHits.observe(hits),
      onCut: (lookup, read) => {
        this.metrics?.candidatesCut.inc();
        this.log?.warn({ simhash: lookup.analysis.hex, read, pageSize: this.options.maxCandidates, pages: this.options.maxCandidatePages }, "candidate lookup cut: more documents share its keys than it may read");
      },
    });
  }

  /** Recent-window candidates in the dedup window of `time`, excluding `excludeId`. */
  private recentCandidates(analysis: Analysis, radius: number, time: number, excludeId: string | undefined): Candidate[] {
    const since = time - this.options.windowMs;
    return this.recent.lookup(probeOf(analysis, radius)).filter((c) => c.id !== excludeId && c.time >= since);
  }

  private matchesFor(analysis: Analysis, radius: number, time: number, excludeId: string | undefined, fromEngine: Candidate[]): { matches: Match[]; candidates: number } {
    const fromRecent = this.recentCandidates(analysis, radius, time, excludeId);
    const all = [...fromRecent, ...fromEngine.filter((c) => c.id !== excludeId)];
    const distinct = new Set(all.map((c) => c.id)).size;
    this.metrics?.candidates.observe(distinct);
    return { matches: compareCandidates(this.fingerprinter, analysis, all, radius), candidates: distinct };
  }

  /** "What is this text a near-duplicate of?" Nothing is written. */
  async check(text: string, options: { id?: string | undefined; time?: number | undefined } = {}): Promise<CheckResult> {
    const end = this.metrics?.checkDuration.startTimer({ operation: "check" });
    const analysis = this.analyze(text, "text");
    const time = options.time ?? Date.now();
    const radius = this.radiusFor(analysis);
    const [fromEngine] = await this.engineCandidates([{ analysis, time, excludeId: options.id, radius }]);
    const { matches, candidates } = this.matchesFor(analysis, radius, time, options.id, fromEngine!.candidates);
    const chosen = chooseOriginal(matches);
    this.metrics?.checks.inc({ operation: "check" });
    if (chosen) this.metrics?.duplicates.inc({ policy: "check" });
    end?.();
    return {
      status: chosen ? "duplicate" : "original",
      duplicate_of: chosen?.originalId ?? null,
      distance: chosen?.match.verdict.distance ?? null,
      similarity: chosen ? round(chosen.match.similarity) : null,
      reason: chosen?.match.verdict.rule ?? null,
      matches: rankMatches(matches).filter((m) => m.verdict.duplicate).map(report),
      candidates,
      candidates_cut: fromEngine!.cut,
    };
  }

  /**
   * Indexes documents with dedup, applying `policy` to duplicates. Results are
   * in input order. Throws ENGINE_UNAVAILABLE (nothing acknowledged) when the
   * engine cannot be reached; per-document engine refusals are returned as errors.
   */
  async index(docs: DocInput[], policy: Policy, labels?: string[]): Promise<(IndexResult | NeardupError)[]> {
    const label = (position: number, field: string) => (labels?.[position] ? `${labels[position]}.${field}` : field);
    const end = this.metrics?.checkDuration.startTimer({ operation: "index" });
    const results: (IndexResult | NeardupError)[] = new Array(docs.length);
    const items: Item[] = [];
    docs.forEach((doc, position) => {
      try {
        items.push({ doc, analysis: this.analyze(doc.text, label(position, "text")), position });
      } catch (err) {
        results[position] = err as NeardupError;
      }
    });
    // Within one request, the earliest by time is decided first (ties: by id).
    items.sort((a, b) => a.doc.time - b.doc.time || (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : a.position - b.position));
    const radii = items.map((it) => this.radiusFor(it.analysis));
    const fromEngine = await this.engineCandidates(
      items.map((it, i) => ({ analysis: it.analysis, time: it.doc.time, excludeId: it.doc.idGiven ? it.doc.id : undefined, radius: radii[i]! })),
    );

    const writes: { item: Item; source: Record<string, unknown> }[] = [];
    await this.mutex.runExclusive(() => {
      items.forEach((item, i) => {
        const { doc, analysis } = item;
        if (doc.idGiven) this.recent.remove(doc.id); // a re-submission replaces itself, never matches itself
        const { matches } = this.matchesFor(analysis, radii[i]!, doc.time, doc.id, fromEngine[i]!.candidates);
        const chosen = chooseOriginal(matches);
        const decision: Decision = chosen
          ? { status: "duplicate", duplicateOf: chosen.originalId, distance: chosen.match.verdict.distance, similarity: round(chosen.match.similarity), reason: chosen.match.verdict.rule ?? undefined }
          : { status: "original" };
        const write = !chosen || policy === "mark";
        results[item.position] = {
          id: doc.id,
          status: decision.status,
          action: write ? "indexed" : policy === "skip" ? "skipped" : "rejected",
          duplicate_of: decision.duplicateOf ?? null,
          distance: decision.distance ?? null,
          similarity: decision.similarity ?? null,
          reason: decision.reason ?? null,
        };
        this.metrics?.checks.inc({ operation: "index" });
        if (chosen) this.metrics?.duplicates.inc({ policy });
        if (!write) return;
        this.recent.add({ id: doc.id, simhash: analysis.simhash, lsh: analysis.lsh, time: doc.time, status: decision.status, duplicateOf: decision.duplicateOf, analysis });
        writes.push({ item, source: documentSource(this.options.textField, doc, analysis, decision, this.fingerprinter.verdictOptions) });
      });
    });

    if (writes.length > 0) {
      let bulk;
      try {
        bulk = await writeDocuments(this.engine, this.options, writes.map((w) => ({ id: w.item.doc.id, source: w.source })), () => this.ensureIndex());
      } catch (err) {
        for (const w of writes) this.recent.remove(w.item.doc.id);
        end?.();
        throw err;
      }
      bulk.items.forEach((engineItem, i) => {
        const w = writes[i]!;
        if (engineItem.error) {
          this.recent.remove(w.item.doc.id);
          const code = engineItem.status === 429 || engineItem.status >= 500 ? "ENGINE_UNAVAILABLE" : "ENGINE_ERROR";
          results[w.item.position] = new NeardupError(code, `the engine refused document ${JSON.stringify(w.item.doc.id)}: ${engineItem.error.type}: ${engineItem.error.reason}`, {
            field: labels?.[w.item.position] ?? "body",
          });
        }
      });
    }
    end?.();
    return results;
  }

  /** Near-duplicates of a text or of a stored document, ranked, each with why. */
  async search(query: { text?: string | undefined; id?: string | undefined; radius?: number | undefined; minSimilarity?: number | undefined; limit: number }): Promise<{ matches: MatchReport[]; candidates: number; radius: number }> {
    const end = this.metrics?.checkDuration.startTimer({ operation: "search" });
    let text = query.text;
    if (text === undefined) {
      const stored = await getDocument<Record<string, unknown>>(this.engine, this.options.index, query.id!);
      const storedText = stored?.[this.options.textField];
      if (typeof storedText !== "string") {
        throw new NeardupError("NOT_FOUND", `document ${JSON.stringify(query.id)} does not exist in ${this.options.index}`, { field: "id" });
      }
      text = storedText;
    }
    const analysis = this.analyze(text, "text");
    const radius = query.radius ?? this.radiusFor(analysis);
    const time = Date.now();
    const [fromEngine] = await this.engineCandidates([{ analysis, time, excludeId: query.id, radius }]);
    const { matches, candidates } = this.matchesFor(analysis, radius, time, query.id, fromEngine!.candidates);
    const kept = matches.filter((m) => (query.minSimilarity === undefined ? m.verdict.duplicate : m.similarity >= query.minSimilarity));
    this.metrics?.checks.inc({ operation: "search" });
    end?.();
    return { matches: rankMatches(kept).slice(0, query.limit).map(report), candidates, radius };
  }

  /** The cluster a document belongs to: its original and every document marked a duplicate of it. */
  async cluster(id: string, limit = 1000): Promise<{ original: string; members: { id: string; status: string; distance: number | null; similarity: number | null }[] }> {
    const stored = await getDocument<{ neardup?: { status?: string; duplicate_of?: string } }>(this.engine, this.options.index, id);
    if (!stored) throw new NeardupError("NOT_FOUND", `document ${JSON.stringify(id)} does not exist in ${this.options.index}`, { field: "id" });
    const original = stored.neardup?.status === "duplicate" && stored.neardup.duplicate_of ? stored.neardup.duplicate_of : id;
    const response = await this.engine.search<{ neardup: { distance?: number; similarity?: number } }>({
      index: this.options.index,
      ignoreUnavailable: true,
      body: {
        size: limit,
        _source: ["neardup.distance", "neardup.similarity", "neardup.timestamp"],
        query: { term: { "neardup.duplicate_of": original } },
        sort: [{ "neardup.timestamp": "asc" }],
      },
    });
    const members = [
      { id: original, status: "original", distance: null, similarity: null },
      ...response.hits.hits.map((h) => ({ id: h._id, status: "duplicate", distance: h._source?.neardup.distance ?? null, similarity: h._source?.neardup.similarity ?? null })),
    ];
    return { original, members };
  }
}
