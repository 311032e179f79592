import { NeardupError } from "../core/errors.js";

/** What happens to a document found to be a near-duplicate. */
export type Policy = "mark" | "skip" | "reject";
export const POLICIES: readonly Policy[] = ["mark", "skip", "reject"];

/** Options of the dedup service; defaults in {@link DEFAULT_DEDUP_OPTIONS}. */
export interface DedupOptions {
  /** Index documents are written to and candidates are searched in (with `rollover`: the write alias). Default `neardup-documents`. */
  index: string;
  /**
   * Time-based indices: `index` is a write alias over `<index>-000001`,
   * `-000002`, ... that a lifecycle policy (ILM/ISM) rolls over and deletes.
   * Reads (candidates, GET, clusters) cover every index behind the alias; a
   * write that finds no write index creates the next one. Default false.
   */
  rollover: boolean;
  /**
   * `index` is an alias over indices made in turn (a client's write alias, through the proxy): as with
   * `rollover`, candidate lookups skip an index behind it that is closed or gone instead of failing. Default false.
   */
  aliasWindow: boolean;
  /** Source field holding the text. Default `text`. */
  textField: string;
  /** The dedup window in milliseconds: only documents this much older than now (by `neardup.timestamp`) are compared. Default 2 days. */
  windowMs: number;
  /** Default policy when a request names none. Default `mark`. */
  policy: Policy;
  /** Hits per engine page of a candidate lookup. Default 1,000. */
  maxCandidates: number;
  /**
   * Pages a single candidate lookup reads before it stops and says so
   * (`candidates_cut`, metric `neardup_candidates_cut_total`, a warning). Default 10.
   */
  maxCandidatePages: number;
  /**
   * How long a written document stays in the in-memory recent-writes window,
   * in milliseconds: it must outlast the engine's refresh interval (default 1 s)
   * so a document written but not yet searchable is still seen. Default 30,000.
   */
  recentWindowMs: number;
  /**
   * How long a write whose outcome is unknown (the engine may have taken it without answering: a timeout, a
   * connection lost after the request went out) stays in the recent-writes window while the engine does not
   * show it, in milliseconds. Found in the engine's search, it leaves as a written document does; not found by
   * then, it leaves (a write that lands later still lands as an original). Default 600,000.
   */
  unknownWriteHoldMs: number;
  /**
   * When the index's refresh interval is not shorter than `recentWindowMs`, hold entries for the interval plus
   * `recentWindowMs` instead of refusing the index (the proxy: the index is the client's, set up for it). Default false.
   */
  recentWindowFitsRefresh: boolean;
  /**
   * The index is the client's (the `_bulk` proxy's indices): a missing one is created with the neardup
   * fields alone, and its other mappings and its settings are left to the engine's index templates and
   * dynamic mapping, as a write sent to the engine directly would have them. Without it the index is the
   * service's own window, created with its text field, `fields` and settings. Default false.
   */
  clientIndex: boolean;
  /** Most documents in one bulk request. Default 1,000. */
  maxBulkItems: number;
  /**
   * Documents a write request decides at a time: a longer request runs as a
   * pipeline of chunks of this many, the next chunk analysed and looked up
   * while this one is decided and written (each chunk in arrival order, as
   * separate requests would be). Default 100.
   */
  pipelineChunk: number;
  /**
   * Memory budget of the recent-writes window, in bytes (rough: analyses and
   * keys). While it is full, new writes answer a retryable 503 until entries
   * expire: the window is never cut short, since that would lose first-one-wins.
   * With the sidecar's windows given to the service (`RecentWindows`), the budget
   * bounds them all together. Default 256 MiB.
   */
  recentWindowBytes: number;
  /**
   * Engine documents a lookup may draw through LSH band keys taken alone
   * (candidates/keys.ts): keys are taken alone from the rarest up while the
   * documents holding them sum to at most this; the commoner keys reach a
   * document only when it shares two of them. 0: every key alone (no term
   * statistics request). Default 200.
   */
  lshKeyBudget: number;
  /**
   * Most documents of the window this sidecar holds in memory to answer lookups without the engine (mirror.ts);
   * 0: none, every lookup asks the engine. Only for one concrete index of one primary shard. Default 0.
   */
  mirrorDocs: number;
}

export const DEFAULT_DEDUP_OPTIONS: Readonly<DedupOptions> = Object.freeze({
  index: "neardup-documents",
  rollover: false,
  aliasWindow: false,
  textField: "text",
  windowMs: 2 * 24 * 3600 * 1000,
  policy: "mark",
  maxCandidates: 1000,
  maxCandidatePages: 10,
  recentWindowMs: 30_000,
  unknownWriteHoldMs: 600_000,
  recentWindowFitsRefresh: false,
  clientIndex: false,
  maxBulkItems: 1000,
  pipelineChunk: 100,
  recentWindowBytes: 256 * 1024 * 1024,
  lshKeyBudget: 200,
  mirrorDocs: 0,
});

/** Whether neardup deduplicates an index of this name: lowercase letters, digits, `.`, `_` and `-`, not starting with a symbol. */
export function isIndexName(name: string): boolean {
  return /^[a-z0-9][a-z0-9._-]*$/.test(name);
}

/** Spreads options over the defaults; an unknown option or a bad value throws INVALID_CONFIG naming it. */
export function resolveDedupOptions(options: Partial<DedupOptions> = {}): DedupOptions {
  for (const key of Object.keys(options)) {
    if (!(key in DEFAULT_DEDUP_OPTIONS)) throw new NeardupError("INVALID_CONFIG", `unknown dedup option ${key}`, { field: key });
  }
  const o = { ...DEFAULT_DEDUP_OPTIONS, ...options };
  for (const key of ["windowMs", "maxCandidates", "maxCandidatePages", "recentWindowMs", "unknownWriteHoldMs", "maxBulkItems", "pipelineChunk", "recentWindowBytes"] as const) {
    if (!Number.isInteger(o[key]) || o[key] <= 0) {
      throw new NeardupError("INVALID_CONFIG", `${key} must be a positive integer, got ${JSON.stringify(o[key])}`, { field: key });
    }
  }
  for (const key of ["lshKeyBudget", "mirrorDocs"] as const) {
    if (!Number.isInteger(o[key]) || o[key] < 0) throw new NeardupError("INVALID_CONFIG", `${key} must be a non-negative integer, got ${JSON.stringify(o[key])}`, { field: key });
  }
  for (const key of ["rollover", "aliasWindow"] as const) {
    if (typeof o[key] !== "boolean") throw new NeardupError("INVALID_CONFIG", `${key} must be true or false, got ${JSON.stringify(o[key])}`, { field: key });
  }
  if (!POLICIES.includes(o.policy)) throw new NeardupError("INVALID_CONFIG", `policy must be one of ${POLICIES.join(", ")}, got ${JSON.stringify(o.policy)}`, { field: "policy" });
  if (!isIndexName(o.index)) throw new NeardupError("INVALID_CONFIG", `index ${JSON.stringify(o.index)} is not a valid index name`, { field: "index" });
  if (!o.textField || o.textField === "neardup" || o.textField.startsWith("neardup.")) {
    throw new NeardupError("INVALID_CONFIG", `textField must be a field outside neardup.*, got ${JSON.stringify(o.textField)}`, { field: "textField" });
  }
  return o;
}
