/**
 * The batch dedup loop behind `neardup dedup`: each document against every
 * earlier one (first one wins), with the embedded index for candidates and
 * the core's verdict rules for the decision. No I/O here: see run-dedup.ts.
 *
 * A duplicate points at its root original by the service's rule (core
 * `chooseRoot`, docs/dedup.md): of the earlier documents the verdict calls
 * duplicates, the earliest by time, ties by id, resolved to its own original.
 */
import { NeardupError } from "../core/errors.js";
import { decide, reportedSimilarity } from "../core/verdict.js";
import type { Comparable } from "../core/verdict.js";
import { lookupKeysOf, type Analysis, type Fingerprinter } from "../core/fingerprinter.js";
import { hamming } from "../core/fingerprint.js";
import { byTimeThenId } from "../core/original.js";
import { LshTable, SegmentIndex } from "../index/index.js";
import type { InputDoc } from "./input.js";

export interface DedupOptions {
  /** Hamming radius for candidates; default: the verdict bucket's `searchRadius` for each text's length. */
  radius?: number | undefined;
  /** Compare only against documents at most this many milliseconds older (needs document times). */
  windowMs?: number | undefined;
  /** Compare only against the last this-many documents. */
  windowDocs?: number | undefined;
  /** Most candidates verified per document: the nearest this many. Default 100. */
  maxCandidates?: number | undefined;
}

/** One output line. */
export interface DedupRecord {
  id: string;
  status: "original" | "duplicate";
  duplicate_of: string | null;
  /** Hamming distance of the simhashes to `duplicate_of`. */
  distance: number | null;
  /** The measure of the rule that fired: edit similarity for an `.edit` rule, else TF-IDF cosine; 4 decimals. */
  similarity: number | null;
  /** The verdict rule that fired, e.g. `long.simhash`, `short.edit`. */
  reason: string | null;
}

export interface Cluster {
  /** Id of the original. */
  id: string;
  /** Documents in the cluster, the original included. */
  size: number;
}

export interface DedupSummary {
  documents: number;
  duplicates: number;
  /** duplicates / documents, 0 for no documents. */
  duplicateRate: number;
  /** Largest clusters, biggest first (at most 5). */
  largestClusters: Cluster[];
}

interface Seen {
  ordinal: number;
  id: string;
  /** Ordinal of the cluster's original. */
  root: number;
  comparable: Comparable;
  /** Window clock: the document's time (time windows) or ordinal, never going backwards. */
  time: number;
  /** The document's own time for choosing originals: its time field, else the previous document's, else its ordinal. */
  docTime: number;
}

export class BatchDeduper {
  private readonly index = new SegmentIndex();
  /** LSH band keys of the documents in the window: the second way to find candidates. */
  private readonly lsh = new LshTable();
  /** Earlier documents still in the window, in arrival order, keyed by ordinal (the index id). */
  private readonly seen = new Map<string, Seen>();
  private readonly clusterSizes = new Map<number, { id: string; size: number }>();
  private ordinal = 0;
  private duplicates = 0;
  private lastTime = -Infinity;
  /** Whether any document so far had a time; then documents without one take the previous document's. */
  private timed = false;
  private lastDocTime = 0;
  private readonly maxCandidates: number;

  constructor(
    private readonly fingerprinter: Fingerprinter,
    private readonly options: DedupOptions = {},
  ) {
    this.maxCandidates = options.maxCandidates ?? 100;
    if (options.windowMs !== undefined && options.windowDocs !== undefined) {
      throw new NeardupError("INVALID_CONFIG", "windowMs and windowDocs are exclusive: give one window", { field: "window" });
    }
  }

  /** Checks one document and remembers it. @throws NeardupError INVALID_INPUT / TOO_LARGE for a bad text. */
  check(doc: InputDoc): DedupRecord {
    return this.checkAnalyzed(doc, this.fingerprinter.analyze(doc.text, "text"));
  }

  /** `check` with the document's analysis already made (by an `Analyzer`, maybe on a worker thread). */
  checkAnalyzed(doc: InputDoc, a: Analysis): DedupRecord {
    const fp = this.fingerprinter;
    if (this.options.windowMs !== undefined && doc.time === undefined) {
      throw new NeardupError("INVALID_INPUT", "no time: a time window needs one (fields time, timestamp, @timestamp, date, created_at, or --time-field)", { field: "time" });
    }
    const ordinal = ++this.ordinal;
    // Times never go backwards (the index clamps the same way).
    const time = Math.max(this.lastTime, this.options.windowMs !== undefined ? (doc.time ?? ordinal) : ordinal);
    this.lastTime = time;
    this.expire(time);

    if (doc.time !== undefined) this.timed = true;
    const docTime = doc.time ?? (this.timed ? this.lastDocTime : ordinal);
    this.lastDocTime = docTime;

    const comparable: Comparable = { normalized: a.normalized, length: a.length, vector: a.vector, simhash: a.simhash, record: a.record, sheet: a.sheet };
    const radius = this.options.radius ?? fp.searchRadius(a.length);
    // The nearest maxCandidates, then earliest first: the first duplicate is
    // the one core `chooseRoot` would pick from all of them (byTimeThenId).
    const nearest = this.candidates(a.simhash, lookupKeysOf(a), radius).slice(0, this.maxCandidates).map((m) => this.seen.get(m.id)!);
    nearest.sort((x, y) => byTimeThenId({ id: x.id, time: x.docTime }, { id: y.id, time: y.docTime }) || x.ordinal - y.ordinal);
    let chosen: { prev: Seen; distance: number; similarity: number; rule: string } | undefined;
    for (const prev of nearest) {
      // A repeated id is the same document again (as the service takes it: an update), never its own duplicate.
      if (prev.id === doc.id || this.rootId(prev) === doc.id) continue;
      const v = decide(comparable, prev.comparable, fp.verdictOptions);
      if (!v.duplicate) continue;
      chosen = { prev, distance: v.distance, similarity: reportedSimilarity(v), rule: v.rule! };
      break;
    }

    const root = chosen === undefined ? ordinal : chosen.prev.root;
    const key = String(ordinal);
    this.index.insert(key, a.simhash, time);
    this.lsh.add(key, a.lsh);
    this.seen.set(key, { ordinal, id: doc.id, root, comparable, time, docTime });
    if (chosen === undefined) {
      return { id: doc.id, status: "original", duplicate_of: null, distance: null, similarity: null, reason: null };
    }
    this.duplicates++;
    const cluster = this.clusterSizes.get(root);
    if (cluster === undefined) this.clusterSizes.set(root, { id: this.rootId(chosen.prev), size: 2 });
    else cluster.size++;
    return {
      id: doc.id,
      status: "duplicate",
      // The root original: the chosen document, or its own original if it is a duplicate.
      duplicate_of: this.rootId(chosen.prev),
      distance: chosen.distance,
      similarity: Math.round(chosen.similarity * 10_000) / 10_000,
      reason: chosen.rule,
    };
  }

  /**
   * Documents within `radius` bits or sharing an LSH band key, nearest first,
   * ties oldest first (ids are arrival ordinals).
   */
  private candidates(simhash: Comparable["simhash"], keys: readonly string[], radius: number): { id: string; distance: number }[] {
    const found: { id: string; distance: number }[] = this.index.lookup(simhash, radius);
    const byIndex = new Set(found.map((m) => m.id));
    for (const id of this.lsh.lookup(keys)) {
      if (!byIndex.has(id)) found.push({ id, distance: hamming(simhash, this.seen.get(id)!.comparable.simhash) });
    }
    return found.sort((x, y) => x.distance - y.distance || Number(x.id) - Number(y.id));
  }

  summary(top = 5): DedupSummary {
    const documents = this.ordinal;
    const largestClusters = [...this.clusterSizes.values()]
      .sort((x, y) => y.size - x.size)
      .slice(0, top)
      .map((c) => ({ ...c }));
    return { documents, duplicates: this.duplicates, duplicateRate: documents === 0 ? 0 : this.duplicates / documents, largestClusters };
  }

  private rootId(prev: Seen): string {
    if (prev.root === prev.ordinal) return prev.id;
    return this.clusterSizes.get(prev.root)?.id ?? prev.id;
  }

  private expire(now: number): void {
    const { windowMs, windowDocs } = this.options;
    if (windowMs === undefined && windowDocs === undefined) return;
    // Times are document ordinals unless a time window is set.
    const cutoff = windowMs !== undefined ? now - windowMs : now - windowDocs!;
    this.index.expireBefore(cutoff);
    for (const [key, s] of this.seen) {
      if (s.time >= cutoff) break;
      this.seen.delete(key);
      this.lsh.remove(key);
    }
  }
}
