/**
 * The dedup service: fingerprint -> candidates (engine + recent-writes window)
 * -> re-rank -> verdict -> write.
 *
 * First one wins (docs/dedup.md has the whole argument):
 * - Arrival order. A write request takes a ticket from the sequencer when it
 *   arrives. Analysis and the engine lookup run at once, in parallel with other
 *   requests; the decisions run in ticket order (within a bulk: by time, then
 *   id), each completed against the recent-writes window, which holds every
 *   decision the engine's search may not have shown to that lookup.
 * - Nothing acknowledged without its dependency. A duplicate whose original is
 *   still being written waits for that write; if it fails, the duplicate is not
 *   written and gets a retryable error. Originals are written first.
 * - Writes of one id are ordered: a write waits for the previous write of its id, and a later version of an
 *   id never goes out before an earlier one of the same request (`writeWaves`).
 * - Re-submission is an update: a document never matches itself or its own
 *   duplicates, and an original that has duplicates stays their original.
 * - Several sidecars: one holds the writer lease and decides; the others
 *   forward their writes to it (see writer-lease.ts).
 */
import { hasErrorCode, NeardupError } from "../core/errors.js";
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { bucketFor } from "../core/verdict.js";
import { bulkItemError, outcomeUnknown } from "../engine/errors.js";
import type { Engine } from "../engine/types.js";
import { keptVerdict, type Candidate } from "./candidate.js";
import { documentSource, storedSketch, getDocument, writeDocuments, type Decision } from "./documents.js";
import { lengthBoundsOf, type LengthBounds } from "../core/length-bounds.js";
import { fetchCandidates, fillTexts, keyPlans, observeDrawn, readNormalizedTexts, type CandidateObserver, DocValueReads, KeyStatistics, lookupProbe, windowAround, type Lookup, type LookupResult } from "./candidates/index.js";
import { parseTime, type DocInput } from "./input.js";
import type { DedupMetrics } from "./metrics.js";
import type { DedupOptions, Policy } from "./options.js";
import { byTimeThenId, chooseOriginal, compareCandidates, rankMatches, type Match } from "./rank.js";
import { Slicer } from "./slicer.js";
import type { RecentWindows, WindowHeld } from "./recent-windows.js";
import { RecentWrites, type RecentEntry } from "./recent.js";
import { UnknownWriteWatch } from "./unknown-writes.js";
import { VisibilityWatch } from "./visibility.js";
import { fromWire } from "../workers/wire.js";
import { Sequencer, type Ticket } from "./sequencer.js";
import { editTextLimit, sketchOf } from "../core/sketch.js";
import type { Analyzer } from "../workers/index.js";
import { WindowMirror } from "./mirror.js";
import { StoredReads, type ClusterMember } from "./cluster.js";
import { setUpIndex } from "./index-setup.js";
import { monotonicClock } from "./clock.js";

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
  /** The best `limit` of the duplicate matches, by rank (`rankMatches`). */
  matches: MatchReport[];
  /** How many stored documents the rules call duplicates: `matches` lists the first `limit` of them. */
  matches_total: number;
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

/** One decided document on its way to the engine. */
export interface Decided {
  item: Item;
  result: IndexResult;
  /** Set when it was not stored (engine refusal, failed dependency): the answer for it. */
  error?: NeardupError;
  /** Its recent-writes entry, when it is written. */
  entry?: RecentEntry;
  source?: Record<string, unknown>;
  /** The window entry of its original, when that original's write is still in flight: it waits for `original.stored`. */
  original?: RecentEntry;
}

/** Routes writes to the sidecar holding the writer lease, when it is not this one. */
export interface WriteRouter {
  /** `undefined` when this sidecar may decide; else the forwarded answer. */
  forward(docs: DocInput[], policy: Policy, labels?: string[]): Promise<(IndexResult | NeardupError)[]> | undefined;
  /** Throws a retryable error when this sidecar no longer holds the lease. */
  assertDeciding(): void;
  /** Ms until this sidecar, having just taken the lease, may decide (its predecessor's writes visible); 0 when it may now. */
  msUntilDeciding?(): number;
}

/** The longest a decision waits, in its turn, for a lease just taken to let it decide, instead of answering RETRY. */
const WAIT_TO_DECIDE_MS = 5_000;

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

/** `c` is the document `self` (a re-submission) or, when `withDuplicates`, one of its duplicates. */
function isSelf(c: Candidate, self: string | undefined, withDuplicates = true): boolean {
  return self !== undefined && (c.id === self || (withDuplicates && c.duplicateOf === self));
}

/**
 * A lookup the engine refused, which a missing index or a missing neardup mapping explains (see
 * `writeCandidates`): the engines name the cause differently (OpenSearch "No mapping found for
 * [neardup.timestamp]", Elasticsearch only "all shards failed"), so any refusal qualifies; an unreachable or
 * overloaded engine does not.
 */
function mayNeedIndexSetup(err: unknown): boolean {
  return err instanceof NeardupError && (err.code === "ENGINE_ERROR" || err.code === "NOT_FOUND");
}

/** After a set-up of the index that did not make a write's lookup succeed, how long failed lookups are not followed by another. */
const SETUP_AGAIN_MS = 10_000;

/**
 * An id sent more than once in one request is written in the order sent, as the engine applies a bulk's
 * writes of one id (the last one sent is what stays; of two `create`s the first). The time order above
 * could put a later-sent version with an earlier time first, and the client's last write was lost
 * (third-party shipper audit): so the id's occurrences take the id's places in the decision order in the
 * order they were sent. Other documents keep their places.
 */
export function keepRequestOrderPerId(order: number[], docs: readonly { id: string }[]): void {
  const slots = new Map<string, number[]>();
  order.forEach((position, slot) => {
    const id = docs[position]!.id;
    const mine = slots.get(id);
    if (mine) mine.push(slot);
    else slots.set(id, [slot]);
  });
  for (const mine of slots.values()) {
    if (mine.length < 2) continue;
    const sent = mine.map((slot) => order[slot]!).sort((a, b) => a - b);
    mine.forEach((slot, k) => (order[slot] = sent[k]!));
  }
}

/** An engine item status that refuses the document itself: sent again as it is, it would be refused again. */
function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** The start of a lookup whose results may be a view of the engine taken earlier (`LookupResult.seenAt`, the window mirror). */
function viewStart(results: readonly LookupResult[], startedAt: number): number {
  let at = startedAt;
  for (const r of results) if (r.seenAt !== undefined && r.seenAt < at) at = r.seenAt;
  return at;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * The waves a chunk's decided documents are written in (`DedupService.write`), each one `_bulk` after the
 * one before it: wave 0 holds the writes that wait for nothing; a document waiting for its original goes one
 * wave after that original when the original is in the chunk, else to wave 1 (it waits for the other write);
 * and a version of an id never goes before an earlier version of it (same wave: the bulk keeps their order).
 * Documents not written (skipped, rejected) that wait for an original are placed the same way, to learn
 * whether their original was stored. Each wave is in request order.
 */
export function writeWaves(decided: readonly Decided[]): Decided[][] {
  const waveOfEntry = new Map<RecentEntry, number>();
  const lastOfId = new Map<string, number>();
  const waves: Decided[][] = [[]];
  for (const d of decided) {
    const id = d.item.doc.id;
    let wave = 0;
    if (d.original) {
      const original = waveOfEntry.get(d.original);
      wave = original === undefined ? 1 : original + 1;
    } else if (!d.entry) continue; // nothing to write, nothing to wait for
    if (d.entry) wave = Math.max(wave, lastOfId.get(id) ?? 0);
    while (waves.length <= wave) waves.push([]);
    waves[wave]!.push(d);
    if (d.entry) {
      waveOfEntry.set(d.entry, wave);
      lastOfId.set(id, wave);
    }
  }
  // Each wave in request order: the engine maps a field new to the index from the first source in the bulk that
  // holds it, so a wave sent in decision order (time, then id) had a later item's number map a field, and the
  // earlier item's text there was refused (proxy differential audit). One id's versions are in request order
  // in decision order too (`keepRequestOrderPerId`), so the last version sent stays the one stored.
  for (const wave of waves) wave.sort((a, b) => a.item.position - b.item.position);
  return waves;
}

export class DedupService {
  private recent: RecentWrites;
  /** Removes this service's window from the sidecar's ({@link RecentWindows}), when it has one. */
  private readonly leaveWindows: (() => void) | undefined;
  /** Confirms when acknowledged writes and deletes show in the engine's search (visibility.ts). */
  private readonly visibility: VisibilityWatch;
  /** Finds out whether writes of unknown outcome were stored (recent.ts `settleUnknown`). */
  private readonly unknownWrites: UnknownWriteWatch;
  private readonly keyStatistics: KeyStatistics;
  /** Whether a document is stored, and clusters, as the engine and the recent-writes window say (cluster.ts). */
  private readonly stored: StoredReads;
  /** Whether candidate reads may take doc values only (contract v4: candidates/reads.ts). */
  private readonly docValueReads: DocValueReads;
  private readonly sequencer = new Sequencer();
  /** The last write of each id in flight (writes of one id are ordered). */
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** A set-up of the index under way after a lookup found it gone or unmapped (`writeCandidates`). */
  private settingUp: Promise<void> | undefined;
  private setUpFailedAt = 0;
  /** Set by the writer lease when several sidecars share the index. */
  router: WriteRouter | undefined;
  /** The window in this sidecar's memory (NEARDUP_MIRROR_DOCS), when on. */
  readonly mirror: WindowMirror | undefined;
  /** The length bounds of the fingerprinter's verdict rules, by length (`lengthsOf`). */
  private readonly lengthBounds: (length: number) => LengthBounds;

  constructor(
    readonly engine: Engine,
    private readonly fingerprinter: Fingerprinter,
    readonly options: DedupOptions,
    private readonly metrics?: DedupMetrics,
    private readonly log?: { warn(details: object, message: string): void; error(details: object, message: string): void },
    /** Analyses the texts of write requests (a worker pool, NEARDUP_WORKERS); default: in this thread. */
    private readonly analyzer?: Analyzer,
    /**
     * The sidecar's recent-writes windows, whose bytes together the budget (`recentWindowBytes`) bounds, and
     * which the window gauges read; default: this service's window alone.
     */
    private readonly windows?: RecentWindows,
  ) {
    this.recent = new RecentWrites({ holdMs: options.recentWindowMs });
    this.leaveWindows = windows?.add(() => this.recent);
    this.lengthBounds = lengthBoundsOf(fingerprinter.verdictOptions);
    this.visibility = new VisibilityWatch(engine, options.index, () => this.recent, {
      refreshMs: () => this.recent.refreshMs,
      onError: (err) =>
        this.log?.warn(
          { err: err instanceof Error ? err.message : String(err), index: options.index },
          "cannot read the engine's refresh counts or refresh the index: recent writes are kept until they are surely searchable, at most two fallback periods",
        ),
      onFallback: () => metrics?.visibilityRefreshes?.inc(),
    });
    this.unknownWrites = new UnknownWriteWatch(engine, () => this.recent, {
      index: options.index,
      holdMs: options.unknownWriteHoldMs,
      pollMs: () => Math.max(100, Math.min(1000, this.recent.refreshMs)),
      onAbandon: (entries) => {
        metrics?.unknownWritesAbandoned?.inc(entries.length);
        this.log?.warn(
          { index: options.index, ids: entries.slice(0, 10).map((e) => e.candidate.id), count: entries.length, holdMs: options.unknownWriteHoldMs },
          "writes whose outcome was unknown were not found in the engine in time: they leave the recent-writes window (if one lands later, it lands as an original)",
        );
      },
    });
    this.keyStatistics = new KeyStatistics(engine, options.index);
    this.stored = new StoredReads(engine, options.index, () => this.recent);
    this.docValueReads = new DocValueReads(engine, options.index, options.windowMs);
    // The mirror follows one concrete index by sequence number, not a window of several indices.
    if (options.mirrorDocs > 0 && !options.rollover) {
      this.mirror = new WindowMirror(engine, {
        index: options.index,
        maxDocs: options.mirrorDocs,
        windowMs: options.windowMs,
        onState: (state, why) => {
          metrics?.mirrorState?.set(state === "ready" ? 1 : 0);
          if (why && state !== "ready") this.log?.warn({ index: options.index, state, why }, state === "off" ? "window mirror off: every lookup asks the engine" : "window mirror starts again: lookups ask the engine until it has loaded");
        },
      });
      if (metrics) metrics.readMirror = () => this.mirror?.size ?? 0;
    }
    // `this.recent` may be replaced (learnRefreshInterval): read it at each scrape.
    if (metrics) metrics.readWindow = () => ({ size: this.budgeted.size, bytes: this.budgeted.bytes });
  }

  /** What the window budget bounds and the gauges show: the sidecar's windows when given, else this service's. */
  private get budgeted(): WindowHeld {
    return this.windows ?? this.recent;
  }

  /**
   * Stops the recent-writes window's watches (visibility, writes of unknown outcome): called when the
   * service closes, before its engine client does, so that no reading goes out to a closed client.
   */
  stop(): void {
    this.visibility.stop();
    this.unknownWrites.stop();
    this.leaveWindows?.();
  }

  /**
   * Nothing of this service is in use: no decision waits its turn, no write is in flight and the
   * recent-writes window is empty (every write it decided is visible in the engine's search). A service
   * that is quiet can be let go and made again later without changing any decision.
   */
  quiet(): boolean {
    return this.sequencer.waiting === 0 && this.inflight.size === 0 && this.recent.size === 0;
  }

  /**
   * Waits, at most `timeoutMs`, until no write of unknown outcome is left in the recent-writes window (each shown
   * by the engine, or given up); resolves how many are left. A writer that stops calls it before it lets its lease
   * go: the next holder does not know them, and a near-duplicate it decided before a late one landed was a second
   * original (audit 16).
   */
  async unknownWritesSettled(timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    while (this.recent.unknownEntries().length > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    const left = this.recent.unknownEntries().length;
    if (left > 0) {
      this.log?.warn(
        { index: this.options.index, count: left, timeoutMs },
        "writes of unknown outcome not yet shown by the engine at shutdown: the next lease holder does not know them, and a near-duplicate it decides before one lands may be a second original",
      );
    }
    return left;
  }

  /**
   * The engine acknowledged deletes of these documents, written past this service (the proxy passes deletes
   * through): they are no candidates from now on, though the engine's search shows them until its refresh.
   */
  forgetDeleted(ids: Iterable<string>): void {
    const all = [...ids];
    for (const id of all) this.recent.forget(id);
    this.mirror?.forget(all);
    this.visibility.kick();
  }

  /**
   * Makes the index ready (index-setup.ts: created, or the neardup mapping added; with rollover, a write index
   * made when none is left), learns its refresh interval, and refreshes it, so that the first decision sees
   * every write the engine acknowledged before: a sidecar started again after a crash has an empty recent-writes
   * window, and with a refresh interval longer than the restart its predecessor's last writes were not
   * searchable yet (audit 17, C1: a second original, with the writer lease off; a lease takeover refreshes too).
   * A refresh the engine refuses (no `maintenance` privilege) is logged and the service goes on as before.
   */
  async ensureIndex(): Promise<void> {
    await setUpIndex(this.engine, this.options);
    await this.learnRefreshInterval();
    await this.engine.refresh(this.options.index).catch((err: unknown) => {
      if (hasErrorCode(err, "NOT_FOUND")) return; // nothing to show
      if (hasErrorCode(err, "ENGINE_UNAVAILABLE")) throw err;
      this.log?.warn(
        { err: err instanceof Error ? err.message : String(err), index: this.options.index },
        "cannot refresh the index at start: writes acknowledged before this sidecar started show in its lookups only after the engine's next refresh",
      );
    });
  }

  /**
   * Reads the index's refresh interval: a written document is searchable at
   * the latest that long after the engine acknowledged it, so recent-writes
   * entries live that long past the acknowledgement. A window shorter than
   * the interval, or an index with refresh disabled, is refused.
   */
  async learnRefreshInterval(): Promise<number> {
    const refreshMs = await this.engine.refreshIntervalMs(this.options.index);
    if (refreshMs < 0) {
      throw new NeardupError("INVALID_CONFIG", `index ${this.options.index} has refresh disabled (refresh_interval -1): near-duplicates written by others would never become visible; set a refresh interval`, { field: "refresh_interval" });
    }
    if (this.options.recentWindowMs <= refreshMs && this.options.recentWindowFitsRefresh && this.recent.size === 0) {
      this.recent = new RecentWrites({ holdMs: refreshMs + this.options.recentWindowMs });
    } else if (this.recent.holdMs <= refreshMs) {
      throw new NeardupError("INVALID_CONFIG", `the recent-writes window (NEARDUP_RECENT_WINDOW_MS, ${this.options.recentWindowMs} ms) must be longer than the refresh interval of ${this.options.index} (${refreshMs} ms)`, { field: "recentWindowMs" });
    }
    this.recent.refreshMs = refreshMs;
    return refreshMs;
  }

  /** The recent-writes window's size (entries and rough bytes), for metrics and tests. */
  get recentWindow(): { entries: number; bytes: number } {
    return { entries: this.recent.size, bytes: this.recent.bytes };
  }

  /** The Hamming radius searched for a text of this length (its verdict bucket's). */
  radiusFor(analysis: Analysis): number {
    return bucketFor(this.fingerprinter.verdictOptions, analysis.length).searchRadius;
  }

  /**
   * The lengths a document reached through band keys must have to be a duplicate of this text, and those of
   * them at which it must share two keys (core length-bounds.ts): a lookup that only decides reads no other,
   * unless it shares a segment.
   */
  lengthsOf(analysis: Analysis): LengthBounds {
    return this.lengthBounds(analysis.length);
  }

  analyze(text: string, field: string): Analysis {
    return this.fingerprinter.analyze(text, field);
  }

  /**
   * Analyses of texts for the write path, in order (each its analysis or the NeardupError it raised): on the
   * worker pool when there is one, which sends back the sketch, the fingerprint and the keys but not the term
   * Maps (the write path does not read them). A follower sidecar sends these to the lease holder.
   */
  async analyzeForWrite(items: { text: string; field?: string }[]): Promise<(Analysis | NeardupError)[]> {
    if (items.length === 0) return [];
    if (this.analyzer) return this.analyzer.analyzeMany(items, { vectors: false });
    return items.map(({ text, field }) => {
      try {
        return this.analyze(text, field ?? "text");
      } catch (err) {
        if (err instanceof NeardupError) return err;
        throw err;
      }
    });
  }

  /** A forwarded analysis of `text` (workers/wire.ts), when it fits the text and this fingerprinter; else undefined. */
  analysisFromWire(value: unknown, text: string): Analysis | undefined {
    return fromWire(value, text, this.fingerprinter);
  }

  /** Where and how candidates are read. */
  private candidateSource() {
    return { ...this.options, maxPages: this.options.maxCandidatePages, verdict: this.fingerprinter.verdictOptions, keyStatistics: this.keyStatistics, docValueReads: this.docValueReads };
  }

  /**
   * The lookups of a write. On one concrete index a missing index is an error here, not "no hits": the write
   * would auto-create it without the neardup mapping, and every lookup after it failed (a sort on
   * `neardup.timestamp` mapped as text) until a restart. When the index is gone, or lacks the neardup mapping
   * (deleted, or deleted and made again by someone else, while this service ran), it is set up again once
   * ({@link ensureIndex}) and the lookups asked again; a mapping that conflicts stays an error naming the field.
   */
  private async writeCandidates(lookups: Lookup[]): Promise<LookupResult[]> {
    return this.withEngineFor(lookups, await this.mirrorCandidates(lookups, true), (rest) => this.writeCandidatesFromEngine(rest));
  }

  /**
   * The window mirror's results (`mirrored`), with the lookups it did not answer asked of the engine
   * (`fromEngine`): every lookup when the mirror could not answer, the ones it declined (a key held by a crowd:
   * the engine reads those oldest first) otherwise.
   */
  private async withEngineFor(lookups: Lookup[], mirrored: (LookupResult | undefined)[] | undefined, fromEngine: (rest: Lookup[]) => Promise<LookupResult[]>): Promise<LookupResult[]> {
    if (!mirrored) return fromEngine(lookups);
    const declined = lookups.flatMap((_, i) => (mirrored[i] ? [] : [i]));
    if (declined.length > 0) {
      const asked = await fromEngine(declined.map((i) => lookups[i]!));
      declined.forEach((i, k) => (mirrored[i] = asked[k]!));
    }
    return mirrored as LookupResult[];
  }

  /** The index stands for indices made in turn (a rollover alias, or a client's alias through the proxy): a lookup skips one behind it that is closed or gone. */
  private get readsWindowOfIndices(): boolean {
    return this.options.rollover || this.options.aliasWindow;
  }

  private async writeCandidatesFromEngine(lookups: Lookup[]): Promise<LookupResult[]> {
    // A missing index reads as no hits only over time-based indices (a lifecycle policy deletes their oldest).
    const ignoreUnavailable = this.readsWindowOfIndices;
    // Beside the lookup, one light question (the field mapping, from the cluster state): a grouped lookup on an
    // index without the mapping answers no hits rather than an error, and the write after it maps neardup.* as text.
    const [looked, mapped] = await Promise.allSettled([this.engineCandidates(lookups, ignoreUnavailable), this.engine.mapsField(this.options.index, "neardup.simhash")]);
    const failed = looked.status === "rejected" ? (looked.reason as unknown) : undefined;
    if (looked.status === "fulfilled" && (mapped.status === "rejected" || mapped.value)) return looked.value;
    if (failed !== undefined && !mayNeedIndexSetup(failed)) throw failed;
    if (!this.settingUp) {
      // A set-up that did not help is not tried again at once: the failure has another cause.
      if (Date.now() - this.setUpFailedAt < SETUP_AGAIN_MS) {
        if (failed !== undefined) throw failed;
        throw new NeardupError("ENGINE_ERROR", `index ${this.options.index} lacks the neardup mapping, and setting it up again did not help`, { field: "index" });
      }
      this.log?.warn({ err: failed instanceof Error ? failed.message : "the neardup mapping is missing", index: this.options.index }, "setting the index up again before writing (it may have been deleted, or made again without the neardup mapping)");
      this.settingUp = this.ensureIndex().finally(() => (this.settingUp = undefined));
    }
    try {
      await this.settingUp;
      return await this.engineCandidates(lookups, ignoreUnavailable);
    } catch (again) {
      this.setUpFailedAt = Date.now();
      throw again;
    }
  }

  /**
   * The lookups of a read (check, search). Over one concrete index, a closed index is the engine's error
   * (`index_closed_exception`, answered 502), not "no hits": with `ignore_unavailable` the engine skips a
   * closed index in silence, and a check called a stored near-duplicate an original. A missing index holds
   * nothing. A window over time-based indices skips what it cannot read (a lifecycle policy at work).
   */
  private async readCandidates(lookups: Lookup[]): Promise<LookupResult[]> {
    return this.withEngineFor(lookups, await this.mirrorCandidates(lookups, false), (rest) => this.readCandidatesFromEngine(rest));
  }

  private async readCandidatesFromEngine(lookups: Lookup[]): Promise<LookupResult[]> {
    if (this.readsWindowOfIndices) return this.engineCandidates(lookups, true);
    try {
      return await this.engineCandidates(lookups, false);
    } catch (err) {
      if (hasErrorCode(err, "NOT_FOUND")) return lookups.map(() => ({ candidates: [], hits: 0, cut: false, pairedKeys: 0 }));
      throw err;
    }
  }

  /**
   * The lookups answered from the window mirror, each result marked with the time of the mirror's view
   * (`seenAt`), with the texts the edit rule needs read from the engine; `undefined` when the mirror cannot
   * answer (off, loading, or a window reaching back past what it holds). For a write, the index must still
   * hold the neardup mapping (one light question to the cluster state, as on the engine path): else the
   * engine path sets the index up again.
   */
  private async mirrorCandidates(lookups: Lookup[], write: boolean): Promise<(LookupResult | undefined)[] | undefined> {
    if (!this.mirror || lookups.length === 0) return undefined;
    const source = this.candidateSource();
    // The band-key plans from the engine's term statistics, as its lookups take them (when they are wanted).
    const plansOf = async (answered: readonly Lookup[]) => (await keyPlans(this.engine, source, [...answered], this.candidateObserver())).plans;
    const [view, mapped] = await Promise.all([this.mirror.lookup(lookups, plansOf), write ? this.engine.mapsField(this.options.index, "neardup.simhash").catch(() => true) : true]);
    if (!view || !mapped) return undefined;
    const answered = lookups.flatMap((_, i) => (view.results[i] ? [i] : []));
    const results = answered.map((i) => view.results[i]!);
    await fillTexts(this.engine, source, answered.map((i) => lookups[i]!), results);
    for (const r of results) {
      r.seenAt = view.seenAt;
      this.metrics?.mirrorHits?.observe(r.hits);
      // What it drew keeps the statistics on or off as the engine's lookups do.
      observeDrawn(this.keyStatistics, this.options.lshKeyBudget, r);
    }
    return view.results;
  }

  private engineCandidates(lookups: Lookup[], ignoreUnavailable: boolean): Promise<LookupResult[]> {
    return fetchCandidates(this.engine, { ...this.candidateSource(), ignoreUnavailable }, lookups, this.candidateObserver());
  }

  private candidateObserver(): CandidateObserver {
    return {
      onHits: (hits) => this.metrics?.engineHits.observe(hits),
      onPaired: (_lookup, plan) => this.metrics?.pairedKeys.inc(plan.paired.length),
      onKeyStatisticsError: (err) => {
        this.metrics?.keyStatisticsErrors.inc();
        this.log?.warn({ err: err instanceof Error ? err.message : String(err) }, "band key statistics unavailable: this lookup takes every key alone");
      },
      onCut: (lookup, read) => {
        this.metrics?.candidatesCut.inc();
        this.log?.warn({ simhash: lookup.analysis.hex, read, pageSize: this.options.maxCandidates, pages: this.options.maxCandidatePages }, "candidate lookup cut: more documents share its keys than it may read");
      },
    };
  }

  /**
   * Recent-window candidates in the dedup window of `time` that a lookup started
   * at `startedAt` may not have seen in the engine, excluding `self` and its duplicates.
   */
  private recentCandidates(
    analysis: Analysis,
    radius: number,
    time: number,
    self: string | undefined,
    startedAt: number,
    ownDuplicates: boolean,
    alone: ReadonlySet<string> | undefined,
    notAfter = Infinity,
    lengths: Pick<Lookup, "lengths" | "twoKeyLengths"> = {},
  ): Candidate[] {
    const { since, until } = windowAround(time, this.options.windowMs);
    return this.recent
      .lookup(lookupProbe(analysis, radius, alone, lengths.lengths, lengths.twoKeyLengths), startedAt, notAfter)
      .map((e) => e.candidate)
      .filter((c) => !isSelf(c, self, ownDuplicates) && c.time >= since && c.time <= until);
  }

  /**
   * The matches of `lookup` (whose engine answer is `lookedUp`), with the recent-writes window's, under the
   * lookup's own radius, length bounds and `decideOnly`; `self` is its `excludeId`. `ownDuplicates` (default
   * true): leave out the documents that point at `self` too (a decision about `self`; a search keeps them).
   * `untilDuplicate`: only the original is needed (a write's decision), so the comparisons stop at the earliest
   * duplicate (rank.ts `CompareOptions.untilDuplicate`).
   */
  private async matchesFor(
    lookup: Lookup,
    lookedUp: LookupResult,
    startedAt: number,
    slicer: Slicer,
    { ownDuplicates = true } = {},
  ): Promise<{ matches: Match[]; candidates: number; pending: Map<string, RecentEntry>; standing: Set<string> }> {
    const { analysis, radius, time, excludeId: self } = lookup;
    const untilDuplicate = lookup.untilDuplicate === true;
    const decideOnly = lookup.decideOnly === true;
    const fromEngine = lookedUp.candidates;
    // A recent entry of an id replaces its engine hit: the hit may be the version before (a re-submission with
    // another text, which the probe may not reach at all), until the engine showed the new one; so does a delete.
    const superseded = (c: Candidate) => this.recent.supersedes(c.id, startedAt);
    // Only the earliest duplicate is wanted: a window entry later than an engine hit already known to be one
    // (compared during the lookup, and not replaced by the window) cannot be it. With log lines the window holds
    // hundreds of each template's lines, all later than the engine's.
    let notAfter = Infinity;
    if (untilDuplicate) {
      for (const c of fromEngine) {
        const kept = keptVerdict(c, analysis, this.fingerprinter.verdictOptions, decideOnly);
        if (kept?.duplicate && c.time < notAfter && !isSelf(c, self, ownDuplicates) && !superseded(c)) notAfter = c.time;
      }
    }
    // A `create` in flight of an id the engine shows will fail (a conflict): the stored version stands, and no
    // decision waits for that write (recent.ts `pendingCreate`).
    const standing = new Set(fromEngine.flatMap((c) => (this.recent.pendingCreate(c.id) ? [c.id] : [])));
    const fromRecent = this.recentCandidates(analysis, radius, time, self, startedAt, ownDuplicates, lookedUp.alone, notAfter, lookup).filter((c) => !standing.has(c.id));
    const recentIds = new Set(fromRecent.map((c) => c.id));
    const all = [...fromRecent, ...fromEngine.filter((c) => !isSelf(c, self, ownDuplicates) && !recentIds.has(c.id) && !superseded(c))];
    this.metrics?.candidates.observe(all.length);
    // The window's unsettled entries as the lookup saw them: the comparisons may yield, and a write that fails
    // meanwhile takes its entry out, but a decision against it must still wait for (and fail with) that write.
    const pending = new Map<string, RecentEntry>();
    for (const c of all) {
      for (const id of [c.id, c.duplicateOf]) {
        const entry = id === undefined || standing.has(id) ? undefined : this.recent.get(id);
        if (entry && entry.visibleAt === undefined) pending.set(id!, entry);
      }
    }
    // A long text stored without a sketch is analysed by the analyzer (on its worker pool), not on the event loop.
    const analyzer = this.analyzer;
    const readText = (c: Candidate) => readNormalizedTexts(this.engine, this.candidateSource(), [c], slicer);
    const compareOptions = analyzer ? { slicer, untilDuplicate, decideOnly, readText, analyze: (text: string) => analyzer.analyze(text).catch(() => undefined) } : { slicer, untilDuplicate, decideOnly, readText };
    return { matches: await compareCandidates(this.fingerprinter, analysis, all, radius, compareOptions), candidates: all.length, pending, standing };
  }

  /**
   * "What is this text a near-duplicate of?" Nothing is written. The verdict weighs every duplicate match;
   * the answer lists the best `limit` of them (default: all), and only those pay for their reported
   * character measures (edit similarity and character cosine; a few per cent of a check with two hundred
   * duplicates, whose cost is confirming each one: bench/check-many.ts).
   */
  async check(text: string, options: { id?: string | undefined; time?: number | undefined; limit?: number | undefined } = {}): Promise<CheckResult> {
    const end = this.metrics?.checkDuration.startTimer({ operation: "check" });
    const analysis = this.analyze(text, "text");
    const time = options.time ?? Date.now();
    const radius = this.radiusFor(analysis);
    const startedAt = monotonicClock();
    const lookup: Lookup = { analysis, time, excludeId: options.id, radius, ...this.lengthsOf(analysis), decideOnly: true };
    const [fromEngine] = await this.readCandidates([lookup]);
    const { matches, candidates } = await this.matchesFor(lookup, fromEngine!, viewStart([fromEngine!], startedAt), new Slicer());
    const chosen = await this.withStoredRoot(chooseOriginal(matches), matches);
    const duplicates = matches.filter((m) => m.verdict.duplicate);
    this.metrics?.checks.inc({ operation: "check" });
    if (chosen) this.metrics?.duplicates.inc({ policy: "check" });
    end?.();
    return {
      status: chosen ? "duplicate" : "original",
      duplicate_of: chosen?.originalId ?? null,
      distance: chosen?.match.verdict.distance ?? null,
      similarity: chosen ? round(chosen.match.similarity) : null,
      reason: chosen?.match.verdict.rule ?? null,
      matches: rankMatches(duplicates).slice(0, options.limit ?? Infinity).map(report),
      matches_total: duplicates.length,
      candidates,
      candidates_cut: fromEngine!.cut,
    };
  }

  /**
   * Indexes documents with dedup, applying `policy` to duplicates. Results are
   * in input order. Throws ENGINE_UNAVAILABLE (nothing acknowledged) when the
   * engine cannot be reached before anything was decided; per-document engine
   * refusals and failed dependencies are returned as errors for those documents.
   * When another sidecar holds the writer lease, the request goes to it.
   */
  async index(docs: DocInput[], policy: Policy, labels?: string[], options: { forwarded?: boolean } = {}): Promise<(IndexResult | NeardupError)[]> {
    if (docs.length === 0) return []; // nothing to forward or decide (a holder refuses an empty forward)
    // A request another sidecar forwarded is decided here or refused, never forwarded again.
    const forwarded = options.forwarded ? undefined : this.router?.forward(docs, policy, labels);
    if (forwarded) return forwarded;
    const held = this.budgeted.bytes;
    if (held >= this.options.recentWindowBytes) {
      const windows = this.windows && this.windows.count > 1 ? ` over ${this.windows.count} indices' windows (this index's: ${this.recent.bytes} bytes)` : "";
      throw new NeardupError("RETRY", `the recent-writes window is full (${held} of ${this.options.recentWindowBytes} bytes${windows}, ${this.budgeted.size} documents): writes wait until entries expire; send again`);
    }
    // Within one request, the earliest by time is decided first (ties: the first sent), so the chunks follow that
    // order. Ties went by id: documents sent without one got random UUIDs, and which of two near-duplicates sent
    // together was kept was a coin toss (audit 14, F5; under `reject` the first sent was refused).
    const order = docs.map((_, position) => position);
    order.sort((a, b) => docs[a]!.time - docs[b]!.time || a - b);
    keepRequestOrderPerId(order, docs);
    // A long request runs as a pipeline of chunks: the next chunk's analysis and lookup while this one is
    // decided and written. Each chunk takes its ticket now, in order, so chunks decide as separate requests
    // arriving one after the other would.
    const size = this.options.pipelineChunk;
    const chunks: number[][] = [];
    for (let from = 0; from < order.length; from += size) chunks.push(order.slice(from, from + size));
    const tickets = chunks.map(() => this.sequencer.take()); // arrival order: taken before any await
    const end = this.metrics?.checkDuration.startTimer({ operation: "index" });
    const results: (IndexResult | NeardupError)[] = new Array(docs.length);
    const outcomes = await Promise.allSettled(chunks.map((positions, k) => this.indexChunk(docs, positions, tickets[k]!, policy, labels, results)));
    end?.();
    const failed = outcomes.flatMap((o, k) => (o.status === "rejected" ? [{ error: o.reason as unknown, positions: chunks[k]! }] : []));
    // Nothing decided anywhere (the engine could not be reached, the lease was lost): the request fails whole, as before.
    if (failed.length > 0 && failed.length === chunks.length) throw failed[0]!.error;
    for (const { error, positions } of failed) {
      // Other chunks were decided and written: this one's documents fail alone, each with the chunk's error.
      if (!(error instanceof NeardupError)) throw error;
      for (const position of positions) results[position] = error;
    }
    return results;
  }

  /**
   * One chunk of a write request (positions in decision order): analysis and lookup at once, with other
   * chunks and requests; the decisions in its ticket's turn; then the write. Per-document outcomes go to
   * `results`; it throws, having decided nothing, when it cannot look up (the engine, the lease).
   */
  private async indexChunk(docs: DocInput[], chunk: number[], ticket: Ticket, policy: Policy, labels: string[] | undefined, results: (IndexResult | NeardupError)[]): Promise<void> {
    const label = (position: number, field: string) => (labels?.[position] ? `${labels[position]}.${field}` : field);
    let decided: Decided[];
    try {
      const items: Item[] = [];
      // The routes check times; a caller that did not (a forwarded chunk, the library) gets a per-document 400, never a window entry it cannot write.
      const positions = chunk.filter((position) => {
        try {
          parseTime(docs[position]!.time, label(position, "time"), 0);
          return true;
        } catch (err) {
          results[position] = err as NeardupError;
          return false;
        }
      });
      // Analysed already by the sidecar that forwarded them, or here.
      const toAnalyse = positions.filter((position) => docs[position]!.analysis === undefined);
      const analysed = await this.analyzeForWrite(toAnalyse.map((position) => ({ text: docs[position]!.text, field: label(position, "text") })));
      const outcomes = new Map(toAnalyse.map((position, k) => [position, analysed[k]!]));
      for (const position of positions) {
        const outcome = docs[position]!.analysis ?? outcomes.get(position)!;
        if (outcome instanceof NeardupError) results[position] = outcome;
        else items.push({ doc: docs[position]!, analysis: outcome, position });
      }
      const lookups = items.map((it): Lookup => ({ analysis: it.analysis, time: it.doc.time, excludeId: it.doc.id, radius: this.radiusFor(it.analysis), untilDuplicate: true, ...this.lengthsOf(it.analysis), decideOnly: true }));
      let startedAt = monotonicClock();
      const lookedUp = Promise.all([this.writeCandidates(lookups), this.rootsAmong(items)]);
      // While the engine answers: the stored re-rank fields, so the ordered section only assembles sources.
      for (const it of items) storedSketch(it.analysis);
      let [fromEngine, roots] = await lookedUp;
      startedAt = viewStart(fromEngine, startedAt);
      await ticket.turn();
      // A lease just taken: its predecessor's last writes become searchable within a refresh interval. The turn
      // waits that out (a client that does not retry dropped the RETRY it got, shipper audit) and looks again.
      const wait = this.router?.msUntilDeciding?.() ?? 0;
      if (wait > 0 && wait <= WAIT_TO_DECIDE_MS) await new Promise((r) => setTimeout(r, wait));
      this.router?.assertDeciding();
      if (wait > 0 || !this.recent.covers(startedAt)) {
        // The lookup started before the engine showed what this decision must see, or waited so long that window
        // entries it needed may have expired: look again.
        startedAt = monotonicClock();
        [fromEngine, roots] = await Promise.all([this.writeCandidates(lookups), this.rootsAmong(items)]);
        startedAt = viewStart(fromEngine, startedAt);
      }
      // Decided one by one in this ticket's turn; the re-rank yields to the event loop between slices.
      const slicer = new Slicer();
      const deciding: Decided[] = [];
      try {
        for (const [i, item] of items.entries()) deciding.push(await this.decide(item, lookups[i]!, fromEngine[i]!, roots, startedAt, policy, slicer));
      } catch (err) {
        // A decision threw (an engine read inside it): the chunk fails whole, and the items decided before it
        // are never written, so their window entries are settled as failed, or later near-duplicates wait on them.
        for (const d of deciding) if (d.entry) this.recent.settle(d.entry, false);
        throw err;
      }
      decided = deciding;
    } finally {
      ticket.done();
    }
    let again: Decided[];
    try {
      again = await this.write(decided, labels);
    } finally {
      for (const d of decided) if (d.entry?.visibleAt === undefined && d.entry) this.recent.settle(d.entry, false);
    }
    const redecided = new Set(again);
    for (const d of decided) {
      results[d.item.position] = d.error ?? d.result;
      // Counted when final: a document decided again is counted by its second decision only.
      if (redecided.has(d)) continue;
      this.metrics?.checks.inc({ operation: "index" });
      if (d.result.status === "duplicate") this.metrics?.duplicates.inc({ policy });
    }
    // Near-duplicates of an original the engine refused for itself: decided again without it, in a turn taken
    // now (behind requests that arrived meanwhile), as if sent again. Each round needs one more refusal, so it ends.
    if (again.length > 0) await this.indexChunk(docs, again.map((d) => d.item.position), this.sequencer.take(), policy, labels, results);
  }

  /**
   * Given ids that are the original of at least one stored duplicate (engine
   * aggregation). Duplicates still in the recent-writes window are asked in
   * the decision's turn instead (`decide`): a pending one can fail after the
   * request started, and then its original is no longer a root.
   */
  private async rootsAmong(items: Item[]): Promise<Set<string>> {
    const ids = [...new Set(items.filter((it) => it.doc.idGiven).map((it) => it.doc.id))];
    const roots = new Set<string>();
    if (ids.length === 0) return roots;
    const response = await this.engine.search<unknown>({
      index: this.options.index,
      ignoreUnavailable: true,
      body: {
        size: 0,
        track_total_hits: false,
        query: { bool: { filter: [{ terms: { "neardup.duplicate_of": ids } }] } },
        aggs: { roots: { terms: { field: "neardup.duplicate_of", size: ids.length } } },
      },
    });
    const buckets = (response.aggregations?.roots as { buckets?: { key: string }[] } | undefined)?.buckets ?? [];
    for (const b of buckets) roots.add(b.key);
    return roots;
  }

  /** One document's verdict under its lookup (radius, length bounds), taken in its turn; a written document enters the window at once. */
  private async decide(item: Item, lookup: Lookup, fromEngine: LookupResult, roots: Set<string>, startedAt: number, policy: Policy, slicer: Slicer): Promise<Decided> {
    const { doc, analysis } = item;
    // Its own id is never its candidate, given or not: a made-up id matches no stored document, and one sent
    // as made up that does (the internal route trusts `id_given`) must not make the document its own duplicate.
    const self = doc.id;
    let { matches, pending, standing } = await this.matchesFor(lookup, fromEngine, startedAt, slicer);
    // An update of an original that has duplicates keeps the cluster: it stays their original.
    const root = roots.has(self) || this.recent.hasDuplicates(self);
    let chosen = root ? undefined : chooseOriginal(matches);
    const { readBefore, readThrough } = fromEngine;
    // Read up to here: every hit older than `readBefore`, and, read by id, every hit up to `readThrough` too.
    const earliest = chosen?.match.candidate;
    const read = earliest !== undefined && readBefore !== undefined && (earliest.time < readBefore || (readThrough !== undefined && byTimeThenId(earliest, readThrough) <= 0));
    if (!root && readBefore !== undefined && !read) {
      // The lookup stopped paging at a duplicate that this decision does not take (a newer version of it in the
      // window replaced it): the earliest duplicate may lie past where it stopped. Look again, reading it all.
      const [whole] = await this.engineCandidates([{ ...lookup, untilDuplicate: false }], this.readsWindowOfIndices);
      ({ matches, pending, standing } = await this.matchesFor(lookup, whole!, startedAt, slicer));
      chosen = chooseOriginal(matches);
    }
    chosen = await this.withStoredRoot(chosen, matches);
    const decision: Decision = chosen
      ? { status: "duplicate", duplicateOf: chosen.originalId, distance: chosen.match.verdict.distance, similarity: round(chosen.match.similarity), reason: chosen.match.verdict.rule ?? undefined }
      : { status: "original" };
    const write = !chosen || policy === "mark";
    const out: Decided = {
      item,
      result: {
        id: doc.id,
        status: decision.status,
        action: write ? "indexed" : policy === "skip" ? "skipped" : "rejected",
        duplicate_of: decision.duplicateOf ?? null,
        distance: decision.distance ?? null,
        similarity: decision.similarity ?? null,
        reason: decision.reason ?? null,
      },
    };
    let after: RecentEntry | undefined;
    if (chosen) {
      const original = pending.get(chosen.originalId) ?? (standing.has(chosen.originalId) ? undefined : this.recent.get(chosen.originalId));
      if (original && original.visibleAt === undefined) {
        out.original = original;
        after = original;
      }
    }
    if (write) {
      // The window holds what the re-rank needs (a sketch with the text where the edit rule may read it), not the analysis.
      // The source first: if it cannot be built, no window entry is left behind that nothing would ever settle.
      out.source = documentSource(this.options.textField, doc, analysis, decision);
      const sketch = sketchOf(analysis, editTextLimit(this.fingerprinter.verdictOptions));
      const match = chosen ? { distance: out.result.distance, similarity: out.result.similarity } : undefined;
      out.entry = this.recent.add({ id: doc.id, simhash: analysis.simhash, lsh: analysis.lsh, lshScheme: analysis.lshScheme, time: doc.time, status: decision.status, duplicateOf: decision.duplicateOf, sketch }, after, match, doc.createOnly === true);
    }
    return out;
  }

  /**
   * Writes decided documents in waves: first those that depend on no pending
   * write (originals, duplicates of stored originals), then, wave by wave,
   * the duplicates whose originals have now been stored. A duplicate whose
   * original failed is neither written nor acknowledged: it gets a retryable
   * error (sent again, it is decided again), unless the engine refused the
   * original for the document itself (`RecentEntry.refused`). That one would be
   * refused again, and a shipper that sends its whole batch again would get
   * "send again" for ever; such duplicates are returned, to be decided again
   * at once without it (`indexChunk`).
   *
   * Writes of one id go out in decision order, so the last version decided is
   * the one stored (`writeWaves`); and the later waves' ids count as in
   * flight from the start, so a later chunk or request writing one of them
   * waits for this write (`bulkWrite`), not only for the first wave's.
   */
  private async write(decided: Decided[], labels: string[] | undefined): Promise<Decided[]> {
    const field = (d: Decided) => labels?.[d.item.position] ?? "body";
    const again: Decided[] = [];
    const [first = [], ...later] = writeWaves(decided);
    const firstWave = this.bulkWrite(first, field); // its ids are in flight from here (synchronously)
    const { before, release } = this.holdInFlight(later.flat().filter((d) => d.entry));
    try {
      await firstWave;
      for (const wave of later) {
        const ok = await Promise.all(wave.map((d) => d.original?.stored ?? true));
        const written: Decided[] = [];
        wave.forEach((d, i) => {
          if (ok[i]) {
            if (d.entry) written.push(d);
            return;
          }
          if (d.entry) this.recent.settle(d.entry, false);
          if (d.original?.refused) return void again.push(d);
          d.error = new NeardupError("RETRY", `document ${JSON.stringify(d.item.doc.id)} was not stored: its original ${JSON.stringify(d.result.duplicate_of)} could not be written; send it again`, {
            field: field(d),
          });
        });
        await this.bulkWrite(written, field, before);
      }
    } finally {
      release();
    }
    return again;
  }

  /**
   * Marks the ids of writes that go out later (a request's second wave) as in
   * flight now. Returns, per id, the write of it that was in flight before
   * (what the later write must still wait for), and `release`, which ends the
   * mark once those writes are done or dropped.
   */
  private holdInFlight(later: Decided[]): { before: Map<string, Promise<unknown> | undefined>; release: () => void } {
    const before = new Map<string, Promise<unknown> | undefined>();
    let release!: () => void;
    const mark = new Promise<void>((r) => (release = r));
    for (const d of later) {
      const id = d.item.doc.id;
      if (before.has(id)) continue;
      before.set(id, this.inflight.get(id));
      this.inflight.set(id, mark);
    }
    return {
      before,
      release: () => {
        release();
        for (const id of before.keys()) if (this.inflight.get(id) === mark) this.inflight.delete(id);
      },
    };
  }

  /**
   * One `_bulk` for these documents, after the writes of the same ids already in flight. A later wave's
   * (`before` given, `holdInFlight`): after the write of each id that was in flight when it was marked, and
   * the mark stays its in-flight entry until released, so an id written in two of a chunk's later waves
   * counts as in flight between them too.
   */
  private async bulkWrite(batch: Decided[], field: (d: Decided) => string, before?: ReadonlyMap<string, Promise<unknown> | undefined>): Promise<void> {
    if (batch.length === 0) return;
    const earlier = [...new Set(batch.flatMap((d) => (before?.has(d.item.doc.id) ? before.get(d.item.doc.id) : this.inflight.get(d.item.doc.id)) ?? []))];
    const run = (async () => {
      await Promise.all(earlier.map((p) => p.catch(() => undefined)));
      // Decisions are this writer's only while it holds the lease: a holder paused between deciding and
      // writing (GC, a stopped process) may have lost it meanwhile, and its successor decided the same
      // texts. Then nothing is written and the documents answer RETRY (multi-sidecar audit: two originals).
      // Checked as each request leaves (the second after re-creating a missing index too), never resent
      // unchecked by the engine client (audit 19, F2).
      const router = this.router;
      const beforeSend = router ? () => router.assertDeciding() : undefined;
      return writeDocuments(this.engine, this.options, batch.map((d) => ({ id: d.item.doc.id, source: d.source! })), () => this.ensureIndex(), beforeSend);
    })();
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    if (!before) for (const d of batch) this.inflight.set(d.item.doc.id, settled);
    let unknown = false;
    try {
      const bulk = await run.catch((err: unknown) => {
        // Engine failures arrive as NeardupErrors (the adapters' guard); anything else is a fault here, which a retry
        // would only repeat: a 500 and a log line with its stack, not a retryable 503 that clients send for ever.
        if (!(err instanceof NeardupError)) this.log?.error({ err }, "bulk write failed inside neardup");
        const error = err instanceof NeardupError ? err : new NeardupError("INTERNAL", "bulk write failed inside neardup (logged); nothing was written", { cause: err });
        // The engine may have taken the request (a timeout): the documents may be stored, so they stay in the
        // recent-writes window as written. Dropped, a near-duplicate sent after the 503 became a second original
        // once the engine stored the first (audit 12); the client's retry is decided against itself.
        if (outcomeUnknown(err)) {
          unknown = true;
          const message = `${error.message}; the write may have been written: send it again (the same id), and it is decided again`;
          for (const d of batch) d.error = new NeardupError(error.code, message, { cause: error, details: error.details });
        } else for (const d of batch) d.error = error;
        return undefined;
      });
      batch.forEach((d, i) => {
        const engineItem = bulk?.items[i];
        if (unknown) {
          this.recent.settleUnknown(d.entry!);
          return;
        }
        if (!engineItem || engineItem.error) {
          if (engineItem && isRefusal(engineItem.status)) d.entry!.refused = true;
          this.recent.settle(d.entry!, false);
          if (engineItem?.error) d.error = bulkItemError(engineItem, d.item.doc.id, field(d));
          return;
        }
        this.recent.settle(d.entry!, true);
      });
      this.visibility.kick();
      if (unknown) this.unknownWrites.kick();
    } finally {
      for (const d of batch) if (this.inflight.get(d.item.doc.id) === settled) this.inflight.delete(d.item.doc.id);
    }
  }

  /**
   * The chosen original, unless it is a root reached through a duplicate's `duplicate_of` that no longer
   * exists (deleted, by hand or with its index): then the duplicate matched is the original named, so that no
   * `duplicate_of` names a document that is gone (second black-box audit: a near-duplicate of a deleted
   * original's duplicate was marked a duplicate of the deleted one, and `reject` refused it for it). A root
   * among the matches, or in the recent-writes window, exists; any other is looked up (`getDocument`, rare: the
   * root is most often a match itself).
   */
  private async withStoredRoot<T extends { match: Match; originalId: string }>(chosen: T | undefined, matches: readonly Match[]): Promise<T | undefined> {
    if (!chosen || chosen.originalId === chosen.match.candidate.id) return chosen;
    const root = chosen.originalId;
    if (matches.some((m) => m.candidate.id === root) || (await this.stored.isStored(root))) return chosen;
    return { ...chosen, originalId: chosen.match.candidate.id };
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
    // Lesser similarities are reported only when asked for (minSimilarity): then every length is read.
    const decideOnly = query.minSimilarity === undefined;
    const lookup: Lookup = { analysis, time, excludeId: query.id, radius, ...(decideOnly ? this.lengthsOf(analysis) : {}), decideOnly };
    const [fromEngine] = await this.readCandidates([lookup]);
    const { matches, candidates } = await this.matchesFor(lookup, fromEngine!, viewStart([fromEngine!], time), new Slicer(), { ownDuplicates: false });
    const kept = matches.filter((m) => (query.minSimilarity === undefined ? m.verdict.duplicate : m.similarity >= query.minSimilarity));
    this.metrics?.checks.inc({ operation: "search" });
    end?.();
    return { matches: rankMatches(kept).slice(0, query.limit).map(report), candidates, radius };
  }

  /** The cluster a document belongs to: its original and every document marked a duplicate of it, oldest first (cluster.ts). */
  cluster(id: string, limit = 1000): Promise<{ original: string; members: ClusterMember[] }> {
    return this.stored.cluster(id, limit);
  }
}
