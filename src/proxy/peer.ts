/**
 * Several sidecars' proxies on one index: the one holding the index's writer
 * lease (src/service/writer-lease.ts, lease `proxy:<index>`) decides, the
 * others send it their fingerprinted items over `POST /_neardup/internal/bulk`
 * on its proxy port and answer their clients with its per-item answers.
 *
 * A {@link ChunkRequest} is one index's fingerprinted items of one client
 * request, with everything the writer needs to write them as the client sent
 * them (action, metadata, query string, credentials); the answer is the
 * engine's `_bulk` item for each, in order, or why the batch got none.
 * The route grants nothing `_bulk` on the same port does not: the writes go
 * out with the client's own credentials.
 */
import { NeardupError, fetchFailureReason, isNeardupError } from "../core/errors.js";
import type { Policy } from "../service/options.js";
import { isStorableTime } from "../service/input.js";
import type { Failure, ItemBody } from "./items.js";
import { nestsDeeperThan } from "./ndjson.js";
import type { WireAnalysis } from "../workers/wire.js";

export const PEER_PATH = "/_neardup/internal/bulk";

/** One fingerprinted `index`/`create` item, ready to be decided. */
export interface ProxyDoc {
  op: "index" | "create";
  /** The client's `_id`, or one made in arrival order (`idGiven: false`). */
  id: string;
  idGiven: boolean;
  /** Epoch ms: the source's time field, or the arrival time. */
  time: number;
  /** The client's action metadata less `_index` and `_id`: a JSON object's text, values as sent (ndjson.ts `metaText`). */
  meta: string;
  source: Record<string, unknown>;
  /**
   * The client's source line as sent. The write is that line with `neardup` added (ndjson.ts
   * `lineToWrite`, {@link withNeardup}), never `source` written again: that way numbers past 2^53 would
   * lose digits, `1e309` become null, `1.0` become `1`, and a repeated key (which the engines refuse)
   * would be stored with its last value.
   */
  sourceLine?: string;
  /** The source's text field. */
  text: string;
  /**
   * The sender's analysis of `text` (workers/wire.ts), so that the holder does not analyse it again; the
   * holder checks that it fits the text and its own fingerprinter, and analyses the text itself when not.
   */
  analysis?: WireAnalysis;
}

export interface ChunkRequest {
  index: string;
  policy: Policy;
  /** Query string forwarded to the engine's `_bulk` (without `?`). */
  query: string;
  /** The client's headers that go with its writes. */
  headers: Record<string, string | string[]>;
  /** False when the client asked `require_alias`: the index is never created. */
  mayCreate: boolean;
  docs: ProxyDoc[];
}

/** Per-item answers in request order, or why the chunk got none. */
export type ChunkAnswer = { items: ItemBody[] } | { failure: Failure };

/** The failure a retryable neardup error (a writer handover, an unreachable writer) becomes: a 429, which clients' bulk helpers retry per item. */
export function retryFailure(err: NeardupError): Failure {
  return { kind: "unavailable", status: 429, reason: `neardup: ${err.message}` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Action metadata a forwarded document may carry: a flat JSON object's text without `_index` or `_id` (the writer sets those). */
function isMetaText(value: unknown): value is string {
  if (typeof value !== "string" || nestsDeeperThan(value, 2)) return false;
  try {
    const meta: unknown = JSON.parse(value);
    return isObject(meta) && !Object.hasOwn(meta, "_index") && !Object.hasOwn(meta, "_id");
  } catch {
    return false;
  }
}

/** Checks the shape of a forwarded request (the writer trusts no more than `_bulk` does); throws INVALID_INPUT. */
export function parseChunkRequest(body: unknown, maxDocs = Infinity): ChunkRequest {
  const bad = (what: string) => new NeardupError("INVALID_INPUT", `forwarded _bulk chunk: ${what}`);
  if (!isObject(body) || typeof body.index !== "string" || typeof body.query !== "string" || typeof body.mayCreate !== "boolean") throw bad("expected index, query, mayCreate");
  if (body.policy !== "mark" && body.policy !== "skip" && body.policy !== "reject") throw bad(`policy ${JSON.stringify(body.policy)}`);
  if (!isObject(body.headers) || !Array.isArray(body.docs)) throw bad("expected headers and docs");
  if (body.docs.length > maxDocs) throw new NeardupError("TOO_LARGE", `forwarded _bulk chunk: ${body.docs.length} docs, at most ${maxDocs} (NEARDUP_MAX_BULK_ITEMS)`, { field: "docs" });
  for (const [k, d] of body.docs.entries()) {
    const ok =
      isObject(d) &&
      (d.op === "index" || d.op === "create") &&
      typeof d.id === "string" &&
      typeof d.idGiven === "boolean" &&
      typeof d.time === "number" &&
      isStorableTime(d.time) &&
      isMetaText(d.meta) &&
      isObject(d.source) &&
      (d.sourceLine === undefined || typeof d.sourceLine === "string") &&
      typeof d.text === "string";
    if (!ok) throw bad(`docs[${k}] is not a document`);
  }
  return body as unknown as ChunkRequest;
}

/** Sends a chunk to the writer's proxy at `url`; a writer that does not answer, or answers nonsense, is a retryable failure (nothing was acknowledged). */
export async function forwardChunk(url: string, request: ChunkRequest, timeoutMs: number, ended?: AbortSignal): Promise<ChunkAnswer> {
  let response: Response;
  try {
    const signal = ended ? AbortSignal.any([AbortSignal.timeout(timeoutMs), ended]) : AbortSignal.timeout(timeoutMs);
    response = await fetch(new URL(PEER_PATH, url), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request), signal });
  } catch (err) {
    if (ended?.aborted) return { failure: retryFailure(ended.reason as NeardupError) };
    return { failure: retryFailure(new NeardupError("RETRY", `the writer sidecar at ${url} did not answer (${fetchFailureReason(err)}); send again`, { cause: err })) };
  }
  const payload = (await response.json().catch(() => undefined)) as Partial<{ items: ItemBody[]; failure: Failure }> | undefined;
  if (response.ok && Array.isArray(payload?.items) && payload.items.length === request.docs.length) return { items: payload.items };
  if (response.ok && isObject(payload?.failure)) return { failure: payload.failure };
  return { failure: retryFailure(new NeardupError("RETRY", `the writer sidecar at ${url} answered HTTP ${response.status}; send again`)) };
}

/**
 * A neardup error that says "send again later": a writer handover (`RETRY`) or a saturated analysis pool
 * (`OVERLOADED`). The proxy answers it `429`, which the clients' bulk helpers and shippers retry per item
 * (a `503` item they drop).
 */
export function isRetry(err: unknown): err is NeardupError {
  return isNeardupError(err) && (err.code === "RETRY" || err.code === "OVERLOADED");
}
