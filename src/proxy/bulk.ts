/**
 * The proxy's `_bulk`: items whose index matches a rule and whose source has
 * the rule's text field go through the dedup service (fingerprint, check,
 * write per policy); every other item (`update`, `delete`, other indices,
 * sources without the text) goes to the engine's `_bulk` untouched. The answer
 * is the engine's `_bulk` answer, one item per action in request order.
 *
 * Order: items run in segments. A segment ends where an item touches a
 * document (index + id) that an item of the other kind in the segment
 * touches, so the writes to one document happen in request order, and where
 * a source written as sent follows fingerprinted items of its index, so the
 * first source to hold a new field maps it, as in the engine; within a
 * segment the two kinds run side by side.
 *
 * Several sidecars: each index's fingerprinted items of a segment go to the
 * sidecar holding the index's proxy writer lease (peer.ts), which decides and
 * writes them and answers the engine's item for each; forwarded items of
 * other kinds still go straight to the engine from here. The order above
 * holds the same way: a segment's forwarded chunk is answered before the
 * next segment starts.
 *
 * Engine down: items that did not reach the engine are answered with a 429
 * per item (which the clients' bulk helpers send again; a 503 item they drop),
 * or for the whole request with 503 (or 429 when the engine said so) when
 * nothing was written, and are never acknowledged. A writer handover, or a
 * writer that does not answer, is a 429 for the items concerned.
 */
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { hasErrorCode, NeardupError, isNeardupError } from "../core/errors.js";
import { isIndexName } from "../service/options.js";
import { textRefusal } from "../core/validate.js";
import { describeEngineError, isClosedIndex, isIndexBlock, outcomeUnknown } from "../engine/errors.js";
import type { IndexResult } from "../service/dedup-service.js";
import { isStorableTime, readSourceTime, type DocInput } from "../service/input.js";
import type { Policy } from "../service/options.js";
import { neardupErrorItem, noopItem, rejectedItem, retryItem, verdictOf, writtenItem, type Failure, type ItemBody } from "./items.js";
import { metaText, PARSE_SLICE_LINES, parseBulkInSlices, textSource, lineToWrite, type BulkItem } from "./ndjson.js";
import { forwardChunk, isRetry, parseChunkRequest, retryFailure, type ChunkAnswer, type ChunkRequest, type ProxyDoc } from "./peer.js";
import { MissingIndex, type IndexDedup, type ServicePool } from "./pool.js";
import { createConflicts, isCreateOnly } from "./create-conflicts.js";
import { mayBeRefused, PipelineCheck, requestRefusal } from "./engine-checks.js";
import { ndjsonBytes } from "./raw-lines.js";
import { ruleFor, type IndexRule } from "./rules.js";
import { engineErrorBody, send, type Upstream, type UpstreamResponse } from "./upstream.js";
import { actionLine, withPlan, type WritePlan } from "./write-through.js";
import { toWire, type WireAnalysis } from "../workers/wire.js";

export interface BulkDeps {
  upstream: Upstream;
  rules: readonly IndexRule[];
  pool: ServicePool;
  /** Policy of rules that name none. */
  defaultPolicy: Policy;
  /** Most documents per `DedupService.index` call. */
  maxBatch: number;
  timeoutMs: number;
  /** Longest text neardup fingerprints (NEARDUP_MAX_TEXT_CHARS, the fingerprinter's); longer ones are written unchecked. */
  maxTextLength: number;
  /** Source field read as the document time (RFC 3339 or epoch ms); missing, unreadable or past now + `timeSkewMs`: now. */
  timeField: string;
  /** How far ahead of now a document time may be (NEARDUP_TIME_SKEW_MS). */
  timeSkewMs: number;
  /** Send the lease holder this sidecar's analyses with each chunk (NEARDUP_PEER_ANALYSES, default on). */
  forwardAnalyses?: boolean | undefined;
}

export interface BulkRequest {
  /** The `{index}` of `/{index}/_bulk`. */
  pathIndex: string | undefined;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * `raw`: the request goes to the engine as sent, and its answer to the client; `before` runs (and is awaited)
 * before it is sent, `answered` when the engine answered 200, before the client gets the answer. `engine`: the
 * engine's own answer, as it came (its refusal of the request, asked before anything was written).
 */
export type BulkAnswer =
  | { kind: "raw"; reason: string; answered?: () => Promise<void>; before?: () => Promise<void> }
  | { kind: "json"; status: number; body: unknown }
  | ({ kind: "engine" } & UpstreamResponse);

/**
 * The action metadata parameters Elasticsearch 8 and OpenSearch 2 read (their bulk request parsers); any other
 * key makes the engine refuse the whole request (`Action/metadata line [n] contains an unknown parameter`).
 */
const ACTION_PARAMETERS = new Set([
  "_index",
  "_type",
  "_id",
  "routing",
  "op_type",
  "version",
  "version_type",
  "if_seq_no",
  "if_primary_term",
  "retry_on_conflict",
  "pipeline",
  "_source",
  "require_alias",
  "require_data_stream",
  "dynamic_templates",
  "list_executed_pipelines",
]);

/**
 * Headers of the client that go with the writes made for it. `content-type` and `accept` carry Elasticsearch's
 * REST compatibility (`application/vnd.elasticsearch+x-ndjson; compatible-with=7`, which lets a 7.x client send
 * `_type`); without them the engine refused such a request whole.
 */
const CLIENT_HEADERS = ["authorization", "es-security-runas-user", "opensearch-security-runas-user", "x-opaque-id", "traceparent", "content-type", "accept"];

interface Dedup {
  at: number;
  item: BulkItem;
  rule: IndexRule;
  source: Record<string, unknown>;
  text: string;
}

/** An item that goes to the engine untouched; `unchecked`: why neardup does not fingerprint its text (the answer says so). */
interface Pass {
  at: number;
  item: BulkItem;
  /** Why the item, written as sent, was not fingerprinted (its answer's `neardup`). */
  unchecked?: string;
  /** Say so only when the engine stored it: an item it refuses gets the engine's answer alone. */
  uncheckedIfStored?: boolean;
  /** The engine is to refuse it (its ingest pipeline does not exist): its index is not created or prepared for it. */
  refused?: boolean;
}

interface Segment {
  dedup: Dedup[];
  pass: Pass[];
}

/** What one batch did: how many items the engine answered, and which items failed how. */
interface Outcome {
  written: number;
  failures: { failure: Failure; items: { at: number; item: BulkItem }[] }[];
}

const NOTHING: Outcome = { written: 0, failures: [] };

let sequence = 0;

/**
 * An id for a document sent without one. The service decides documents of
 * equal time in id order, so these ids sort in arrival order: milliseconds
 * and a counter (fixed-width base 36), then randomness against collisions
 * between proxies.
 */
export function arrivalId(now = Date.now()): string {
  sequence = (sequence + 1) % 36 ** 4;
  return now.toString(36).padStart(9, "0") + sequence.toString(36).padStart(4, "0") + randomUUID().replaceAll("-", "").slice(0, 8);
}

/** A request's query less `filter_path`: the proxy reads the engine's items, and answers them whole. */
function readingWholeItems(query: URLSearchParams | string): URLSearchParams {
  const params = new URLSearchParams(query);
  params.delete("filter_path");
  return params;
}

/** Each index name's space ({@link ServicePool.spaceOf}): the names of one index (an alias, its write index) share one. */
type Spaces = ReadonlyMap<string, string>;

function docKey(item: BulkItem, spaces: Spaces): string | undefined {
  return item.id === undefined ? undefined : `${spaces.get(item.index) ?? item.index}\u0000${item.id}`;
}

/**
 * The time a document is decided with: its `field` (RFC 3339, or epoch ms), or the arrival time `now` when
 * that is missing, not a time, or later than `now + skewMs`. A time far ahead would keep the document in the
 * window, a candidate for every later text, until that time; the API refuses it, the proxy (whose clients
 * drop refused documents) decides with the arrival time instead. The source is written as sent either way.
 */
export function timeOf(source: Record<string, unknown>, field: string, now: number, skewMs: number): number {
  const ms = readSourceTime(source[field]);
  return isStorableTime(ms) && ms <= now + skewMs ? ms : now;
}

function isUnavailableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

export class BulkHandler {
  private readonly pipelines: PipelineCheck;
  /**
   * The rule of each name no rule matches that is an alias whose single write index one matches, as last learnt
   * ({@link learnRules}): writes through it are deduplicated under that index's rule (audit 22b, F8).
   */
  private readonly aliasRules = new Map<string, IndexRule>();

  constructor(private readonly deps: BulkDeps) {
    this.pipelines = new PipelineCheck(deps.upstream, deps.timeoutMs);
  }

  /** The rule for writes to `name`: its own, else its write index's when it is an alias ({@link learnRules}). */
  private ruleOf(name: string): IndexRule | undefined {
    return ruleFor(this.deps.rules, name) ?? this.aliasRules.get(name);
  }

  /**
   * Learns which of `names` that no rule matches are aliases whose write index a rule matches (pool
   * `writeIndexOf`, kept 5 s): a write through such an alias is deduplicated and marked as one naming the index.
   * Audit 22b, F8: it was written as sent, neither deduplicated nor marked. (The other way round, an index named
   * directly whose write alias has the rule, stays with the index's own rule: docs/proxy.md.)
   */
  private async learnRules(names: Iterable<string>): Promise<void> {
    const asked = [...new Set(names)].filter((name) => isIndexName(name) && ruleFor(this.deps.rules, name) === undefined);
    await Promise.all(
      asked.map(async (name) => {
        const index = await this.deps.pool.writeIndexOf(name);
        const rule = index === undefined ? undefined : ruleFor(this.deps.rules, index);
        if (rule) this.aliasRules.set(name, rule);
        else this.aliasRules.delete(name);
      }),
    );
  }

  async handle(request: BulkRequest): Promise<BulkAnswer> {
    const parsed = await parseBulkInSlices(request.body, request.pathIndex);
    // Blank lines only, with no parameter the engine would check first: its answer, at once. Forwarded, a gzip body
    // of 100 KB (99 MB of newlines) held the proxy's in-flight budget for the engine's 15 s on it, and every other
    // client's `_bulk` waited and got 429 (hostile-input audit).
    if (!parsed.ok && parsed.blank && [...request.query.keys()].length === 0) {
      return { kind: "json", status: 400, body: engineErrorBody(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;") };
    }
    if (!parsed.ok) return parsed.refuse ? { kind: "json", status: 400, body: engineErrorBody(400, "x_content_parse_exception", `neardup: ${parsed.reason}`) } : { kind: "raw", reason: parsed.reason };
    // The engines refuse the whole request, writing nothing, for an action parameter they do not know: so must we.
    const unknown = parsed.items.find((item) => Object.keys(item.meta).some((key) => !ACTION_PARAMETERS.has(key)));
    if (unknown) return { kind: "raw", reason: `an action names a parameter the engines do not know (${Object.keys(unknown.meta).join(", ")})` };
    await this.learnRules(parsed.items.map((item) => item.index));
    const spaces = await this.spacesOf(parsed.items);
    // Items whose ingest pipeline does not exist: the engine refuses each (400) and creates no index for them, so they
    // go to it as sent, and neardup creates nothing for them either (audit 22b, F5).
    const refused = await this.missingPipelines(parsed.items, request);
    const segments = await this.segments(parsed.items, spaces, refused);
    // An index neardup would create (or prepare) for this request: first, whether the engine takes the request at all
    // (its query parameters, its content type); the engine's own refusal, nothing created (audit 22b, F5: the index
    // stayed, empty).
    if (mayBeRefused(request.query, request.headers) && this.makesIndex(segments)) {
      const refusal = await requestRefusal(this.deps.upstream, request, this.deps.timeoutMs);
      if (refusal) return { kind: "engine", ...refusal };
    }
    // Nothing to fingerprint: the engine's own answer, as sent (no items parsed and written again; `filter_path` kept).
    if (segments.every((segment) => segment.dedup.length === 0 && segment.pass.every((p) => p.unchecked === undefined))) {
      // Its deletes in deduplicated indices still leave the windows once the engine answered (see forgetDeleted; an index
      // without a service gets one, whose lookups would still see the document). The answer is not read, so a delete that
      // failed hides its document from the lookups of one refresh interval (a duplicate missed, never a document lost).
      const deletes = segments.flatMap((segment) => segment.pass.flatMap(({ item }) => (item.op === "delete" && this.ruleOf(item.index) !== undefined ? [item] : [])));
      const answered = deletes.length === 0 ? undefined : () => this.forgetDeleted(deletes);
      // Sources into indices a rule names: those indices are made ready (the neardup fields mapped) before.
      const pass = segments.flatMap((segment) => segment.pass);
      const before = pass.some((p) => this.prepares(p)) ? () => this.prepare([], request.query, pass).then(() => undefined) : undefined;
      return { kind: "raw", reason: "no item is fingerprinted", ...(answered ? { answered } : {}), ...(before ? { before } : {}) };
    }
    const started = performance.now();
    const query = readingWholeItems(request.query);
    const queryString = query.toString();
    const headers: Record<string, string | string[]> = {};
    for (const name of CLIENT_HEADERS) {
      const value = request.headers[name];
      if (value !== undefined) headers[name] = value;
    }

    const items = parsed.items;
    const results: Record<string, ItemBody>[] = new Array(items.length);
    const failures: Failure[] = [];
    let written = 0;
    let down: Failure | undefined;
    // Documents whose fingerprinted write got a retryable error (its original's write failed, a handover):
    // the later items touching them get that error too, so an `update` never lands on a write not acknowledged.
    const held = new Map<string, Failure>();
    // The engine makes the indices a request writes to before it runs any item: a delete before the first write to
    // a new index answers `not_found`, not `index_not_found_exception`. Segments run one after another, so the
    // services' indices are made ready first (black-box audit: a 404 error, and `errors: true`, the engine never gave).
    const early = segments.length > 1 ? await this.prepare(segments.flatMap((segment) => segment.dedup), query, segments.flatMap((segment) => segment.pass)) : undefined;
    for (const whole of segments) {
      if (down) {
        this.fail([...whole.pass, ...whole.dedup], results, down);
        continue;
      }
      const segment = held.size === 0 ? whole : this.holdBack(whole, held, results, spaces);
      // A pass write to an index that does not exist yet creates it, with its shards still starting under the
      // first lookup of a dedup service that finds it there: that lookup failed. The services' indices first.
      const prepared = early ?? (segment.pass.length > 0 ? await this.prepare(segment.dedup, query, segment.pass) : undefined);
      const outcomes = await Promise.all([
        this.runPass(segment.pass, request.pathIndex, queryString, headers, results),
        this.runDedup(segment.dedup, request.pathIndex, query, headers, results, prepared),
      ]);
      for (const outcome of outcomes) {
        written += outcome.written;
        for (const { failure, items: failed } of outcome.failures) {
          failures.push(failure);
          if (failure.kind === "unavailable") down = failure;
          this.fail(failed, results, failure);
        }
      }
      for (const { at, item } of segment.dedup) {
        const key = docKey(item, spaces);
        const body = Object.values(results[at] ?? {})[0] as { status?: unknown; error?: { reason?: unknown } } | undefined;
        const status = body?.status;
        if (key !== undefined && body?.error && typeof status === "number" && isUnavailableStatus(status)) held.set(key, { kind: "unavailable", status, reason: String(body.error.reason) });
      }
    }

    if (written === 0 && failures.length > 0) {
      // Nothing reached the engine: answer for the whole request, as the engine would.
      // The engine refused the request itself (a bad query parameter, a malformed action): its own answer, once.
      const only = failures[0]!;
      if (only.kind === "engine" && failures.every((f) => f.kind === "engine" && f.status === only.status)) return { kind: "json", status: only.status, body: only.body };
      const unavailable = failures.flatMap((f) => (f.kind === "unavailable" ? [f] : []));
      if (unavailable.length === failures.length) {
        const status = unavailable.some((f) => f.status === 429) ? 429 : 503;
        const type = status === 429 ? "es_rejected_execution_exception" : "neardup_engine_unavailable_exception";
        return { kind: "json", status, body: engineErrorBody(status, type, unavailable[0]!.reason) };
      }
    }
    const errors = results.some((r) => Object.values(r)[0]!.error !== undefined);
    return { kind: "json", status: 200, body: { took: Math.round(performance.now() - started), errors, items: results } };
  }

  /**
   * The space of each index name of the request, when it names more than one: an `update` or `delete` naming the
   * index that an `index` wrote through its alias (or the other way round) touches the same document, and must
   * wait for it (audit 14, F1 and F2: the update ran first and failed 404, a delete did not take the document out
   * of the near-duplicate's lookup). Empty for a request of one name.
   */
  private async spacesOf(items: readonly BulkItem[]): Promise<Spaces> {
    const names = [...new Set(items.map((item) => item.index))];
    if (names.length < 2) return new Map();
    const spaces = await Promise.all(names.map((name) => this.deps.pool.spaceOf(name)));
    return new Map(names.map((name, k) => [name, spaces[k]!]));
  }

  /**
   * The positions of the `index` / `create` items into indices a rule matches whose ingest pipeline (the item's
   * own `pipeline`, else the request's) does not exist, each with why it is written as sent (when the engine
   * stores it after all: the pipeline was made meanwhile).
   */
  private async missingPipelines(items: readonly BulkItem[], request: BulkRequest): Promise<Map<number, string>> {
    const fallback = request.query.get("pipeline");
    const named = new Map<number, string>();
    items.forEach((item, at) => {
      if ((item.op !== "index" && item.op !== "create") || item.sourceLine === undefined || !this.ruleOf(item.index)) return;
      const own = item.meta.pipeline;
      const name = typeof own === "string" ? own : fallback;
      if (name !== null && name !== "_none") named.set(at, name);
    });
    if (named.size === 0) return new Map();
    const missing = await this.pipelines.missing(named.values(), request.headers);
    const refused = new Map<number, string>();
    for (const [at, name] of named) if (missing.has(name)) refused.set(at, `not fingerprinted, written as sent: ingest pipeline [${name}] did not exist when neardup looked`);
    return refused;
  }

  /** Whether a pass item makes its index ready first: a source into an index a rule matches, which the engine is not to refuse. */
  private prepares(p: Pass): boolean {
    return p.item.sourceLine !== undefined && !p.refused && this.ruleOf(p.item.index) !== undefined;
  }

  /** Whether running the segments makes a dedup service this proxy has not made yet (which creates or maps its index). */
  private makesIndex(segments: readonly Segment[]): boolean {
    return segments.some(
      (segment) => segment.dedup.some(({ item }) => this.deps.pool.existing(item.index) === undefined) || segment.pass.some((p) => this.prepares(p) && this.deps.pool.existing(p.item.index) === undefined),
    );
  }

  /** Splits the items into segments (see the file comment) and decides which are fingerprinted. */
  private async segments(items: BulkItem[], spaces: Spaces, refused: ReadonlyMap<number, string> = new Map()): Promise<Segment[]> {
    const segments: Segment[] = [];
    let current: Segment = { dedup: [], pass: [] };
    let keys = { dedup: new Set<string>(), pass: new Set<string>(), deletesIn: new Set<string>(), dedupIn: new Set<string>() };
    for (let at = 0; at < items.length; at++) {
      // Yields between slices, as the parse does: 2M items took 2.4-3.7 s here at once, and /livez waited (audit 24, F3).
      if (at > 0 && at % PARSE_SLICE_LINES === 0) await new Promise((resolve) => setImmediate(resolve));
      const item = items[at]!;
      const refusal = refused.get(at);
      const routed = refusal === undefined ? this.asDedup(item, at) : undefined;
      const dedup = routed && "text" in routed ? routed : undefined;
      const key = docKey(item, spaces);
      const space = spaces.get(item.index) ?? item.index;
      const other = dedup ? keys.pass : keys.dedup;
      // A delete in a deduplicated index changes every later item's candidates there: they are decided after it.
      // A source written as sent after fingerprinted items of its index goes after them too: the first source
      // with a field maps it (a new index's text field mapped from a number refused every text before it).
      const mapsAfter = !dedup && item.sourceLine !== undefined && keys.dedupIn.has(space);
      if ((key !== undefined && other.has(key)) || (dedup && keys.deletesIn.has(space)) || mapsAfter) {
        segments.push(current);
        current = { dedup: [], pass: [] };
        keys = { dedup: new Set(), pass: new Set(), deletesIn: new Set(), dedupIn: new Set() };
      }
      if (dedup) keys.dedupIn.add(space);
      if (key !== undefined) (dedup ? keys.dedup : keys.pass).add(key);
      if (item.op === "delete" && this.ruleOf(item.index)) keys.deletesIn.add(space);
      if (dedup) current.dedup.push(dedup);
      else if (refusal !== undefined) current.pass.push({ at, item, unchecked: refusal, uncheckedIfStored: true, refused: true });
      else current.pass.push({ at, item, ...(routed && "unchecked" in routed ? { unchecked: routed.unchecked } : {}) });
    }
    segments.push(current);
    return segments;
  }

  /**
   * The item as one to fingerprint; `unchecked` when its text is one neardup refuses (nothing visible after
   * normalization, a lone surrogate, longer than NEARDUP_MAX_TEXT_CHARS): the engine stores such a document,
   * so it is written as sent (a per-item 400 or 413 would be dropped by shippers) and never a candidate;
   * undefined for every other item that passes through.
   */
  private asDedup(item: BulkItem, at: number): Dedup | { unchecked: string } | undefined {
    // An empty `_id` the engine refuses (`if _id is specified it must not be empty`): it answers the item.
    if ((item.op !== "index" && item.op !== "create") || item.id === "") return undefined;
    const rule = this.ruleOf(item.index);
    if (!rule) return undefined;
    const parsed = textSource(item.sourceLine, rule.textField);
    if (!parsed) return undefined;
    const refusal = textRefusal(parsed.text, this.deps.maxTextLength, rule.textField);
    return refusal ? { unchecked: `not fingerprinted, written as sent: ${refusal.message}` } : { at, item, rule, ...parsed };
  }

  /** The segment less its items that touch a document in `held`, which are answered with its error here. */
  private holdBack(segment: Segment, held: Map<string, Failure>, results: Record<string, ItemBody>[], spaces: Spaces): Segment {
    const keep = <T extends { at: number; item: BulkItem }>(items: T[]): T[] =>
      items.filter((x) => {
        const key = docKey(x.item, spaces);
        const failure = key === undefined ? undefined : held.get(key);
        if (failure) this.fail([x], results, failure);
        return failure === undefined;
      });
    return { dedup: keep(segment.dedup), pass: keep(segment.pass) };
  }

  private fail(items: { at: number; item: BulkItem }[], results: Record<string, ItemBody>[], failure: Failure): void {
    for (const { at, item } of items) {
      const id = item.id;
      const status = failure.status;
      const body =
        failure.kind === "unavailable"
          ? retryItem(item.index, id, failure.reason)
          : { _index: item.index, ...(id === undefined ? {} : { _id: id }), status, error: describeEngineError(failure.body) ?? { type: "engine_error", reason: `HTTP ${status}` } };
      results[at] = { [answerOp(item)]: body };
    }
  }

  /** Untouched items through the engine's own `_bulk`; resolves how many got an answer. */
  private async runPass(pass: Pass[], pathIndex: string | undefined, query: string, headers: Record<string, string | string[]>, results: Record<string, ItemBody>[]): Promise<Outcome> {
    if (pass.length === 0) return NOTHING;
    const failed = (failure: Failure): Outcome => ({ written: 0, failures: [{ failure, items: pass }] });
    // A source line that was not UTF-8 goes as the client sent it (raw-lines.ts): the engine answers that item.
    const body = ndjsonBytes(pass.flatMap(({ item }) => (item.sourceLine === undefined ? [item.actionLine] : [item.actionLine, item.sourceLine])));
    const path = `${pathIndex === undefined ? "" : `/${encodeURIComponent(pathIndex)}`}/_bulk${query ? `?${query}` : ""}`;
    let response;
    try {
      response = await send(this.deps.upstream, { method: "POST", path, headers: { "content-type": "application/x-ndjson", ...headers }, body });
    } catch (err) {
      return failed({ kind: "unavailable", status: 503, reason: (err as Error).message });
    }
    let parsed: { items?: Record<string, ItemBody>[] } | undefined;
    try {
      parsed = JSON.parse(response.body.toString("utf8")) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    if (response.status !== 200 || !Array.isArray(parsed?.items) || parsed.items.length !== pass.length) {
      const described = describeEngineError(parsed);
      if (isUnavailableStatus(response.status)) {
        return failed({ kind: "unavailable", status: response.status === 429 ? 429 : 503, reason: described ? `${described.type}: ${described.reason}` : `HTTP ${response.status}` });
      }
      return failed({ kind: "engine", status: response.status, body: parsed ?? response.body.toString("utf8") });
    }
    pass.forEach(({ at, unchecked, uncheckedIfStored }, k) => {
      const answer = parsed.items![k]!;
      const say = unchecked !== undefined && !(uncheckedIfStored && Object.values(answer)[0]?.error !== undefined);
      results[at] = !say ? answer : Object.fromEntries(Object.entries(answer).map(([op, body]) => [op, { ...body, neardup: { status: "unchecked", reason: unchecked } }]));
    });
    await this.forgetDeleted(pass.flatMap(({ item }, k) => (item.op === "delete" && parsed.items![k]!.delete?.status === 200 ? [item] : [])));
    return { written: pass.length, failures: [] };
  }

  /**
   * Deletes the engine acknowledged, in indices this proxy deduplicates, leave their services' recent-writes
   * windows: the deleted document is no candidate for the items after it, though the engine's search shows it
   * until its next refresh. (A delete through another sidecar, or straight to the engine, is seen after that
   * refresh.) An index this proxy deduplicates but has no service for yet gets one now: the items after the
   * delete (in this request or the next) would make it later, and its lookups would still see the document.
   */
  private async forgetDeleted(deletes: BulkItem[]): Promise<void> {
    const deleted = new Map<string, string[]>();
    for (const { index, id } of deletes) {
      if (id === undefined) continue;
      const ids = deleted.get(index);
      if (ids) ids.push(id);
      else deleted.set(index, [id]);
    }
    for (const [index, ids] of deleted) {
      const rule = this.ruleOf(index);
      const entry = await (this.deps.pool.existing(index) ?? (rule ? this.deps.pool.get(index, rule, false) : undefined))?.catch(() => undefined);
      entry?.service.forgetDeleted(ids);
    }
  }

  /**
   * Makes ready the dedup services of these items' indices (creating an index, when allowed, and waiting for
   * it), by index; a failure is left for {@link runDedup} to answer (it is not tried a second time).
   */
  private async prepare(dedup: Dedup[], params: URLSearchParams, pass: Pass[] = []): Promise<Map<string, Promise<IndexDedup>>> {
    const aliasOnly = isTrue(params.get("require_alias"));
    // Sources written as sent into an index a rule names make it ready too: the first write into a new index maps
    // its fields, and a client's own `neardup` object there mapped neardup's fields as text, and every text in
    // that index was unchecked from then on (differential audit).
    const ruled = pass.flatMap((p) => {
      const rule = this.prepares(p) ? this.ruleOf(p.item.index) : undefined;
      return rule ? [{ at: p.at, item: p.item, rule }] : [];
    });
    const prepared = new Map([...byIndex([...dedup, ...ruled])].map(([index, group]) => [index, this.deps.pool.get(index, group[0]!.rule, mayCreateFor(group, aliasOnly))] as const));
    // A service made earlier may have outlived its index (deleted behind the proxy): a delete in this request,
    // run before the writes, met no index and answered `index_not_found`, where the engine, which makes a
    // request's indices first, answers `not_found` (differential audit). Such an index is set up again first;
    // only where a delete comes before the index's first fingerprinted item (no extra request otherwise).
    const firstWrite = new Map<string, number>();
    for (const { at, item } of dedup) if (!firstWrite.has(item.index)) firstWrite.set(item.index, at);
    const deletesIn = new Set(pass.flatMap(({ at, item }) => (item.op === "delete" && at < (firstWrite.get(item.index) ?? -1) ? [item.index] : [])));
    await Promise.all(
      [...prepared].map(async ([index, entry]) => {
        const ready = await entry.catch(() => undefined);
        if (ready && deletesIn.has(index) && !(await ready.service.engine.indexExists(index).catch(() => true))) await ready.service.ensureIndex().catch(() => undefined);
      }),
    );
    return prepared;
  }

  /** Fingerprinted items through the dedup services, one per target index. */
  private async runDedup(
    dedup: Dedup[],
    pathIndex: string | undefined,
    params: URLSearchParams,
    headers: Record<string, string | string[]>,
    results: Record<string, ItemBody>[],
    prepared?: Map<string, Promise<IndexDedup>>,
  ): Promise<Outcome> {
    if (dedup.length === 0) return NOTHING;
    const query = params.toString();
    const aliasOnly = isTrue(params.get("require_alias"));
    const outcomes = await Promise.all(
      [...byIndex(dedup)].map(async ([index, group]): Promise<Outcome> => {
        const mayCreate = mayCreateFor(group, aliasOnly);
        let entry;
        try {
          entry = await (prepared?.get(index) ?? this.deps.pool.get(index, group[0]!.rule, mayCreate));
        } catch (err) {
          // Not there and not to be created: the engine answers these items itself (index_not_found).
          if (err instanceof MissingIndex) return this.runPass(group, pathIndex, query, headers, results);
          // Closed, or blocked (read-only: 403; flood stage: 429), so neardup could not map its fields: the engine
          // answers these items itself, as it answers them without neardup (audit 22b: a 503 for every request, or a
          // per-item 502), and one it stores after all (the block lifted meanwhile) says it is unchecked.
          const closed = engineAnswers(err, index, "prepare");
          if (closed !== undefined) return this.runPass(asSent(group, closed), pathIndex, query, headers, results);
          if (hasErrorCode(err, "ENGINE_UNAVAILABLE")) return { written: 0, failures: [{ failure: { kind: "unavailable", status: 503, reason: err.message }, items: group }] };
          // The client's index name, not this sidecar's setup: its items go to the engine, which answers a name it
          // refuses with its own per-item 400 (an answer made here differed from it: no `_id: null`, no `index_uuid`)
          // and stores those of a name it takes (`@`, `+`, non-ASCII), unchecked: it says so on each.
          if (hasErrorCode(err, "INVALID_CONFIG") && err.field === "index") {
            const reason = `not fingerprinted, written as sent: neardup does not deduplicate index [${index}]: it takes index names of a-z, 0-9, '.', '_' and '-' only`;
            return this.runPass(asSent(group, reason), pathIndex, query, headers, results);
          }
          // neardup cannot deduplicate this index (refresh disabled, a data stream it may not create, a field
          // limit its fields pass...): the engine stores these items, so they are written as sent and say why.
          const reason = `not fingerprinted, written as sent: neardup cannot deduplicate index [${index}]: ${isNeardupError(err) ? err.message : String(err)}`;
          return this.runPass(
            group.map(({ at, item }) => ({ at, item, unchecked: reason })),
            pathIndex,
            query,
            headers,
            results,
          );
        }
        const outcome: Outcome = { written: 0, failures: [] };
        // Forwarding with analyses, in chunks of NEARDUP_PIPELINE_CHUNK: the next chunk is analysed here while
        // the holder decides this one, as the holder's own pipeline overlaps them when it analyses.
        const analysing = this.forwardsAnalyses(entry);
        const size = analysing ? Math.min(this.deps.maxBatch, entry.service.options.pipelineChunk) : this.deps.maxBatch;
        const chunks: Dedup[][] = [];
        for (let from = 0; from < group.length; from += size) chunks.push(group.slice(from, from + size));
        const analyse = (chunk: Dedup[] | undefined) => (analysing && chunk ? this.analyses(entry, chunk) : undefined);
        let next = analyse(chunks[0]);
        for (const [k, chunk] of chunks.entries()) {
          const analyses = await next;
          next = analyse(chunks[k + 1]);
          const failure = await this.indexChunk(entry, index, chunk, { query, headers, mayCreate }, results, analyses);
          if (failure) outcome.failures.push({ failure, items: chunk });
          else outcome.written += chunk.length;
        }
        return outcome;
      }),
    );
    return { written: outcomes.reduce((n, o) => n + o.written, 0), failures: outcomes.flatMap((o) => o.failures) };
  }

  /** One chunk of an index's fingerprinted items: decided here or by the lease holder; fills in `results`. */
  private async indexChunk(
    entry: IndexDedup,
    index: string,
    chunk: Dedup[],
    request: Pick<ChunkRequest, "query" | "headers" | "mayCreate">,
    results: Record<string, ItemBody>[],
    analyses?: (WireAnalysis | undefined)[],
  ): Promise<Failure | undefined> {
    const now = Date.now();
    const docs = chunk.map((d, k): ProxyDoc => {
      const given = idOf(d.item);
      const analysis = analyses?.[k];
      return {
        op: d.item.op as ProxyDoc["op"],
        id: given ?? arrivalId(now),
        idGiven: given !== undefined,
        time: timeOf(d.source, this.deps.timeField, now, this.deps.timeSkewMs),
        meta: metaText(d.item),
        source: d.source,
        sourceLine: d.item.sourceLine,
        text: d.text,
        ...(analysis ? { analysis } : {}),
      };
    });
    const answer = await this.route(entry, { ...request, index, policy: chunk[0]!.rule.policy ?? this.deps.defaultPolicy, docs });
    if ("failure" in answer) return answer.failure;
    chunk.forEach((d, k) => (results[d.at] = { [answerOp(d.item)]: answer.items[k]! }));
    return undefined;
  }

  /** To the sidecar holding the index's proxy lease, or decided here when that is this one (or the lease is off). */
  private async route(entry: IndexDedup, request: ChunkRequest): Promise<ChunkAnswer> {
    let writer: string | undefined;
    try {
      writer = entry.lease?.writerUrl();
    } catch (err) {
      if (isRetry(err)) return { failure: retryFailure(err) };
      throw err;
    }
    // Analyses made for another holder (a handover meanwhile) fit this one too: the holder checks each.
    if (writer === undefined) return this.decideHere(entry, request);
    return forwardChunk(writer, request, this.deps.timeoutMs, entry.lease?.holderEnded(writer));
  }

  /** Whether this sidecar sends the index's chunks to another that holds its lease, with its analyses. */
  private forwardsAnalyses(entry: IndexDedup): boolean {
    if (this.deps.forwardAnalyses === false) return false;
    try {
      return entry.lease?.writerUrl() !== undefined;
    } catch {
      return false;
    }
  }

  /**
   * This sidecar's analyses of a chunk's texts, to send with it: the holder decides and writes without
   * analysing them again, so each sidecar adds analysis capacity (the holder analysed every document of the
   * index). A text that fails here, or a pool that is full, goes without one: the holder analyses or refuses it.
   */
  private async analyses(entry: IndexDedup, chunk: Dedup[]): Promise<(WireAnalysis | undefined)[]> {
    try {
      const outcomes = await entry.service.analyzeForWrite(chunk.map((d) => ({ text: d.text })));
      return outcomes.map((a) => (a instanceof NeardupError ? undefined : toWire(a)));
    } catch {
      return [];
    }
  }

  /**
   * A chunk another sidecar's proxy sent to this one as the lease holder
   * (`POST /_neardup/internal/bulk`): decided here or refused, never sent on.
   */
  async handleForwarded(body: unknown): Promise<ChunkAnswer> {
    const parsed = parseChunkRequest(body, this.deps.maxBatch);
    // A hand-made chunk's `filter_path` left the engine's items out, and a stored document was answered 502 (audit 14, F8).
    const request = { ...parsed, query: readingWholeItems(parsed.query).toString() };
    const { index, docs } = request;
    await this.learnRules([index]);
    const rule = this.ruleOf(index);
    if (!rule) {
      const err = new NeardupError("INVALID_CONFIG", `this sidecar's NEARDUP_PROXY_INDICES has no rule for index ${JSON.stringify(index)}: sidecars sharing an index need the same rules`);
      return { items: docs.map((d) => neardupErrorItem(index, d.id, err)) };
    }
    // The line is what gets written: the text decided on is taken from it, never trusted beside it.
    for (const d of docs) {
      if (d.sourceLine === undefined) continue;
      const parsed = textSource(d.sourceLine, rule.textField);
      if (parsed) Object.assign(d, parsed);
      else delete d.sourceLine;
    }
    let entry;
    try {
      entry = await this.deps.pool.get(index, rule, request.mayCreate);
    } catch (err) {
      if (err instanceof MissingIndex) return { failure: { kind: "engine", status: 404, body: engineErrorBody(404, "index_not_found_exception", `no such index [${index}]`) } };
      // As runDedup does for its own items: the engine answers a closed or blocked index's items itself.
      const closed = engineAnswers(err, index, "prepare");
      if (closed !== undefined) return this.writeAsSent(request, closed);
      if (hasErrorCode(err, "ENGINE_UNAVAILABLE")) return { failure: { kind: "unavailable", status: 503, reason: err.message } };
      const failure = isNeardupError(err) ? err : new NeardupError("ENGINE_ERROR", String(err));
      return { items: docs.map((d) => neardupErrorItem(index, d.id, failure)) };
    }
    const refused = this.refusedHere(docs, rule);
    if (refused.size === 0) return this.decideHere(entry, request);
    return this.decideWithRefused(entry, request, refused);
  }

  /**
   * The forwarded documents whose text this sidecar refuses though the sender did not (NEARDUP_MAX_TEXT_CHARS
   * set lower here, as in the middle of a rolling change), by position, with the reason the answer gives: they
   * are written as sent, as the sender would have written them. A per-item 413 would be dropped by shippers.
   * One whose id another document of the chunk has keeps the refusal: written apart, it could land out of order.
   */
  private refusedHere(docs: ProxyDoc[], rule: IndexRule): Map<number, string> {
    const refused = new Map<number, string>();
    let ids: Map<string, number> | undefined;
    docs.forEach((d, k) => {
      const refusal = textRefusal(d.text, this.deps.maxTextLength, rule.textField);
      if (!refusal) return;
      ids ??= docs.reduce((n, x) => n.set(x.id, (n.get(x.id) ?? 0) + 1), new Map<string, number>());
      if (ids.get(d.id) === 1) refused.set(k, `not fingerprinted, written as sent: ${refusal.message}`);
    });
    return refused;
  }

  /** A chunk some of whose documents are written unchecked ({@link refusedHere}) first, then the others decided; one answer per document, in order. */
  private async decideWithRefused(entry: IndexDedup, request: ChunkRequest, refused: Map<number, string>): Promise<ChunkAnswer> {
    const { index, docs } = request;
    const results: Record<string, ItemBody>[] = new Array(docs.length);
    const itemOf = (d: ProxyDoc) => docItem(d, index);
    const pass: Pass[] = [...refused].map(([at, unchecked]) => ({ at, item: itemOf(docs[at]!), unchecked }));
    const written = await this.runPass(pass, undefined, request.query, request.headers, results);
    for (const { failure, items } of written.failures) this.fail(items, results, failure);
    const rest = docs.flatMap((d, at) => (refused.has(at) ? [] : [{ d, at }]));
    if (rest.length > 0) {
      const answer = await this.decideHere(entry, { ...request, docs: rest.map((r) => r.d) });
      if ("failure" in answer) {
        if (written.written === 0) return answer;
        this.fail(rest.map(({ d, at }) => ({ at, item: itemOf(d) })), results, answer.failure);
      } else rest.forEach(({ d, at }, k) => (results[at] = { [d.op]: answer.items[k]! }));
    }
    return { items: results.map((r) => Object.values(r)[0]!) };
  }

  /**
   * A chunk's documents through the engine's own `_bulk`, as the client sent them (ids minted here kept): for an
   * index neardup cannot read or prepare (closed, blocked), whose items the engine answers itself. One the
   * engine stores after all (reopened, block lifted meanwhile) is answered with `unchecked` and why.
   */
  private async writeAsSent(request: ChunkRequest, unchecked: string): Promise<ChunkAnswer> {
    const { index, docs } = request;
    const results: Record<string, ItemBody>[] = new Array(docs.length);
    const pass = docs.map((d, at): Pass => ({ at, item: docItem(d, index), unchecked, uncheckedIfStored: true }));
    const outcome = await this.runPass(pass, undefined, request.query, request.headers, results);
    const failure = outcome.failures[0]?.failure;
    if (failure) return { failure };
    return { items: results.map((r) => Object.values(r)[0]!) };
  }

  /** Fingerprint, decide and write through this sidecar's service for the index. */
  private async decideHere(entry: IndexDedup, request: ChunkRequest): Promise<ChunkAnswer> {
    const { index, query, headers } = request;
    const docs: DocInput[] = [];
    const plans: WritePlan[] = [];
    for (const d of request.docs) {
      const plan: WritePlan = { op: d.op, index, meta: d.meta, query, headers, sourceLine: d.sourceLine === undefined ? undefined : lineToWrite(d.sourceLine, d.source) };
      const analysis = d.analysis === undefined ? undefined : entry.service.analysisFromWire(d.analysis, d.text);
      const doc: DocInput = { id: d.id, idGiven: d.idGiven, text: d.text, fields: undefined, time: d.time, source: withPlan(d.source, plan), analysis, createOnly: d.op === "create" };
      docs.push(doc);
      plans.push(plan);
    }
    let outcome: (IndexResult | NeardupError)[];
    try {
      // `forwarded`: the proxy routes its own chunks (route()); the service only checks that this sidecar may decide.
      outcome = await entry.service.index(docs, request.policy, undefined, { forwarded: true });
    } catch (err) {
      // The index was closed (or blocked) behind the service: its lookups fail, and the engine answers each write
      // itself (audit 22b: a per-item 502 `neardup_engine_error_exception` for the engine's 400 `index_closed_exception`).
      const closed = engineAnswers(err, index, "read");
      if (closed !== undefined) return this.writeAsSent(request, closed);
      const refusal = plans.find((p) => p.refusal)?.refusal;
      const message = isNeardupError(err) ? err.message : String(err);
      if (refusal && !isUnavailableStatus(refusal.status)) return { failure: { kind: "engine", status: refusal.status, body: refusal.body } };
      if (refusal || hasErrorCode(err, "ENGINE_UNAVAILABLE")) {
        return { failure: { kind: "unavailable", status: refusal?.status === 429 ? 429 : 503, reason: message } };
      }
      if (isRetry(err)) return { failure: retryFailure(err) };
      const failure = isNeardupError(err) ? err : new NeardupError("ENGINE_ERROR", message);
      return { items: docs.map((doc) => neardupErrorItem(index, doc.id, failure)) };
    }
    // The engine refused the write request as a whole for the client's reasons (e.g. `?refresh=bogus`) and nothing
    // of this chunk was written: its own answer, not a per-item 502.
    const refusal = plans.find((p) => p.refusal && !isUnavailableStatus(p.refusal.status))?.refusal;
    if (refusal && refusal.status >= 400 && refusal.status < 500 && plans.every((p) => !p.result)) return { failure: { kind: "engine", status: refusal.status, body: refusal.body } };
    const items = outcome.map((r, k): ItemBody => {
      const plan = plans[k]!;
      if (plan.result) return isNeardupError(r) ? plan.result : { ...plan.result, neardup: verdictOf(r) };
      // A write whose outcome is unknown ("send it again") is a per-item 429, as a retry is: shippers and the clients'
      // bulk helpers retry those, and drop a 503 item as failed, so a write that never landed was lost (audit 14, F6).
      if (isRetry(r) || (isNeardupError(r) && outcomeUnknown(r))) return retryItem(index, docs[k]!.id, r.message);
      if (isNeardupError(r)) return neardupErrorItem(index, docs[k]!.id, r);
      return r.action === "skipped" ? noopItem(index, r) : r.action === "rejected" ? rejectedItem(index, r) : writtenItem(index, r);
    });
    // A `create` that `skip` left out whose id exists: the engine's 409, which it answers such a `create` whatever its
    // text (audit 22b, F9: `200 noop`, a success for a document that was never the client's).
    const creates = request.docs.flatMap((d, k) => {
      const r = outcome[k]!;
      return !isNeardupError(r) && r.action === "skipped" && !plans[k]!.result && d.idGiven && isCreateOnly(d) ? [k] : [];
    });
    const conflicts = await createConflicts(this.deps.upstream, index, creates.map((k) => request.docs[k]!), headers, this.deps.timeoutMs);
    for (const [j, item] of conflicts) items[creates[j]!] = item;
    return { items };
  }
}

/**
 * When `err` says the index is closed or blocked (core: engine errors `isClosedIndex`, `isIndexBlock`), so that
 * the engine is to answer its items itself: the `unchecked` reason for one it stores after all; else undefined.
 */
function engineAnswers(err: unknown, index: string, doing: "prepare" | "read"): string | undefined {
  if (!isClosedIndex(err) && !isIndexBlock(err)) return undefined;
  return `not fingerprinted, written as sent: neardup could not ${doing} index [${index}]: ${(err as Error).message}`;
}

/** Items the engine is to answer itself, each answered with `unchecked` (and why) only when the engine stored it. */
function asSent(group: Dedup[], unchecked: string): Pass[] {
  return group.map(({ at, item }) => ({ at, item, unchecked, uncheckedIfStored: true }));
}

/** A forwarded document as the bulk item the client sent (its metadata as text, its source line as sent). */
function docItem(d: ProxyDoc, index: string): BulkItem {
  return { op: d.op, meta: {}, id: d.id, metaAt: 0, index, actionLine: actionLine(d, index, d.id), sourceLine: d.sourceLine ?? JSON.stringify(d.source) };
}

/** The items by target index, in request order within each. */
function byIndex<T extends { item: BulkItem }>(dedup: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const d of dedup) {
    const list = groups.get(d.item.index);
    if (list) list.push(d);
    else groups.set(d.item.index, [d]);
  }
  return groups;
}

/** A query flag as the engines read it: present without a value (`?require_alias`), or `true` in any case. */
function isTrue(value: string | null): boolean {
  return value === "" || value?.toLowerCase() === "true";
}

/** The key of an item's answer: the engines answer an `index` action with `op_type: create` under `create`. */
function answerOp(item: Pick<BulkItem, "op" | "meta">): string {
  return item.op === "index" && item.meta.op_type === "create" ? "create" : item.op;
}

/** Whether the items' index may be created: not when the request or an item asks `require_alias` (`true` or `"true"`). */
function mayCreateFor(group: { item: BulkItem }[], aliasOnly: boolean): boolean {
  return !aliasOnly && !group.some((d) => d.item.meta.require_alias === true || d.item.meta.require_alias === "true");
}

function idOf(item: BulkItem): string | undefined {
  return item.id === "" ? undefined : item.id;
}
