import { NeardupError, type ErrorCode } from "../core/errors.js";
import type { BulkItemResult, EngineKind } from "./types.js";

/** Removes user info from a URL so it can be logged or put in an error message. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = "";
      u.password = "";
    }
    return u.toString().replace(/\/$/, "");
  } catch {
    return "<invalid url>";
  }
}

/**
 * Removes credentials from free text (engine error reasons, client messages,
 * setting values) before it is logged or sent to a caller: the user info of
 * any URL (`scheme://user:pass@`, also in malformed URLs), and the value of any `Authorization`-style
 * credential (`Basic ...`, `Bearer ...`, `ApiKey ...`), wherever it appears;
 * plus any of the given secret values verbatim.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@"']*@/gi, "$1<redacted>@")
    // `user:pass@` in a malformed URL (`http//u:p@host`, `u:p@host`).
    .replace(/(^|[\s/"'=,([])[^\s/@:"',()[\]]+:(?!\/\/)[^\s@"']*@/g, "$1<redacted>@")
    .replace(/\b(authorization|proxy-authorization|x-api-key|api[-_]?key)(["']?\s*[:=]\s*["']?)[^"'\s,;}]+(\s+[^"'\s,;}]+)?/gi, "$1$2<redacted>")
    .replace(/\b(basic|bearer|apikey)(\s+)[A-Za-z0-9+/=._~-]{6,}/gi, "$1$2<redacted>");
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("<redacted>");
  }
  return out;
}

interface ClientErrorLike {
  name?: string;
  message?: string;
  meta?: { statusCode?: number; body?: unknown };
}

interface EngineErrorBody {
  error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[]; caused_by?: { type?: string; reason?: string } } | string;
  status?: number;
}

/** The HTTP status of an engine client's error (`meta.statusCode`), when it has one. */
export function statusOf(err: unknown): number | undefined {
  return (err as ClientErrorLike | undefined)?.meta?.statusCode;
}

const UNAVAILABLE_NAMES = new Set(["ConnectionError", "TimeoutError", "NoLivingConnectionsError", "RequestAbortedError"]);

/** The engine's error type and reason from a response body, when it has them. */
export function describeEngineError(body: unknown): { type: string; reason: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { error } = body as EngineErrorBody;
  if (typeof error === "string") return { type: "error", reason: error };
  if (!error) return undefined;
  const cause = error.caused_by;
  const reason = error.reason ?? error.root_cause?.[0]?.reason ?? "no reason given";
  const withCause = cause?.reason && cause.reason !== reason ? `${reason} (caused by ${cause.type}: ${cause.reason})` : reason;
  return { type: error.type ?? error.root_cause?.[0]?.type ?? "unknown", reason: withCause };
}

/**
 * Turns anything a client threw into a NeardupError.
 * Connection failures, timeouts and 429/503 answers become ENGINE_UNAVAILABLE
 * (retryable); other engine answers become ENGINE_ERROR, or CONFLICT / NOT_FOUND
 * for 409 / 404. The message names the engine, the operation, the engine's
 * error type and reason, and never credentials: client messages can embed the
 * request URL, so only our own text and the redacted base URL are used.
 */
export function toEngineError(err: unknown, kind: EngineKind, operation: string, baseUrl: string): NeardupError {
  if (err instanceof NeardupError) return err;
  const e = (err ?? {}) as ClientErrorLike;
  // The client's own error carries the request (headers included) in `meta`:
  // keep only a plain summary as the cause so no log serialiser can leak auth.
  const cause = new Error(`${e.name ?? "Error"} (HTTP ${e.meta?.statusCode ?? "-"})`);
  const where = `${kind} at ${redactUrl(baseUrl)}`;
  const status = e.meta?.statusCode;
  if (e.name && UNAVAILABLE_NAMES.has(e.name)) {
    // The client retries timeouts and lost connections: any try may have reached the engine, which goes on with it.
    return new NeardupError("ENGINE_UNAVAILABLE", `${operation}: ${where} is unreachable (${e.name})`, {
      cause,
      details: { operation, outcomeUnknown: true },
    });
  }
  const described = describeEngineError(e.meta?.body);
  // An engine or a proxy in front of it may echo request headers in its error text.
  const text = redactText(described ? `${described.type}: ${described.reason}` : `HTTP ${status ?? "?"} ${e.name ?? "error"}`);
  const details = { operation, status, engineErrorType: described?.type };
  const code = classifyEngineFailure(engineFailureOf(e.meta?.body, status) ?? { status, type: "unknown", reason: "", causes: [] }, "request");
  if (code === "ENGINE_UNAVAILABLE") {
    return new NeardupError("ENGINE_UNAVAILABLE", `${operation}: ${where} is overloaded or not ready (${text})`, { cause, details });
  }
  if (described?.type === "cluster_block_exception") {
    return new NeardupError("ENGINE_ERROR", `${operation}: ${where} refused it: the index is blocked (${text})`, { cause, details });
  }
  if (status === 401 || status === 403) {
    return new NeardupError("ENGINE_ERROR", `${operation}: ${where} refused the credentials (${text})`, { cause, details });
  }
  return new NeardupError(code, `${operation}: ${where} answered ${text}`, { cause, details });
}

/**
 * Whether a failed engine call may still have been carried out: the request
 * may have reached the engine, and no answer says what it did (a timeout, a
 * connection lost after sending; `details.outcomeUnknown`). A write that failed
 * so may be stored.
 */
export function outcomeUnknown(err: unknown): boolean {
  return err instanceof NeardupError && err.details?.outcomeUnknown === true;
}

/** What the engine said went wrong, for a whole request, a `_msearch` entry or a `_bulk` item. */
export interface EngineFailure {
  /** HTTP status of the request or of the item. */
  status: number | undefined;
  /** The engine's error type, e.g. `mapper_parsing_exception`. */
  type: string;
  reason: string;
  /** Types of the errors behind it: root causes, the `caused_by` chain, failed shards. */
  causes: string[];
}

interface RawEngineError {
  type?: string;
  reason?: string | null;
  root_cause?: RawEngineError[];
  caused_by?: RawEngineError;
  failed_shards?: { reason?: RawEngineError }[];
}

/** Types of every error behind `error` (not its own), depth first. */
function causeTypes(error: RawEngineError, out = new Set<string>()): Set<string> {
  const behind = [...(error.root_cause ?? []), ...(error.failed_shards ?? []).flatMap((s) => s.reason ?? []), ...(error.caused_by ? [error.caused_by] : [])];
  for (const e of behind) {
    if (e.type) out.add(e.type);
    causeTypes(e, out);
  }
  return out;
}

/** The failure in a response body (`{error, status}`) or in a bulk item's `error`, when there is one. */
export function engineFailureOf(body: unknown, status?: number): EngineFailure | undefined {
  const described = describeEngineError(body);
  if (!described) return undefined;
  const { error, status: bodyStatus } = body as { error: RawEngineError | string; status?: number };
  return { status: status ?? bodyStatus, ...described, causes: typeof error === "string" ? [] : [...causeTypes(error)] };
}

/**
 * Engine error types that mean "not now": overload, shards not (yet) assigned
 * or recovering, nodes leaving or joining. ES names rejections `es_...`,
 * OpenSearch `opensearch_...`.
 */
const UNAVAILABLE_TYPES = new Set([
  "es_rejected_execution_exception",
  "opensearch_rejected_execution_exception",
  "rejected_execution_exception",
  "circuit_breaking_exception",
  "no_shard_available_action_exception",
  "unavailable_shards_exception",
  "shard_not_found_exception",
  "illegal_index_shard_state_exception",
  "primary_missing_action_exception",
  "no_node_available_exception",
  "node_not_connected_exception",
  "node_disconnected_exception",
  "node_closed_exception",
  "connect_transport_exception",
  "receive_timeout_transport_exception",
  "master_not_discovered_exception",
  "cluster_manager_not_discovered_exception",
  "process_cluster_event_timeout_exception",
]);

/**
 * A cluster block (`cluster_block_exception`) is "not now" only when the block says so: the cluster has no
 * master or has not recovered its state (`SERVICE_UNAVAILABLE/2/no master`, status 503), or the index is
 * blocked at the flood-stage disk watermark (`TOO_MANY_REQUESTS/12/...read-only-allow-delete block`, 429). A
 * block an operator set (`FORBIDDEN/5/index read-only (api)`, `FORBIDDEN/8/index write (api)`, 403) stays until
 * someone lifts it: an engine error, never a retryable 503 (audit 22b: a read-only index made every `_bulk`
 * into it a 503 that shippers retried for ever).
 */
function isUnavailableBlock(type: string, reason: string): boolean {
  return type === "cluster_block_exception" && /\b(?:SERVICE_UNAVAILABLE|TOO_MANY_REQUESTS)\//.test(reason);
}

/**
 * True when the engine refused a call because of a block on an index that is not "not now" (see
 * {@link isUnavailableBlock}): a read-only or write block (403), or the flood-stage read-only-allow-delete
 * block (429); not a cluster without a master (503). The engine gives a write into such an index its own
 * per-item answer.
 */
export function isIndexBlock(err: unknown): boolean {
  if (!(err instanceof NeardupError)) return false;
  const details = err.details as { engineErrorType?: string; status?: number } | undefined;
  return details?.engineErrorType === "cluster_block_exception" && details.status !== 503 && !/\bSERVICE_UNAVAILABLE\//.test(err.message);
}

/** True when the engine refused a call because the index is closed (`index_closed_exception`, in the error's details). */
export function isClosedIndex(err: unknown): boolean {
  return err instanceof NeardupError && (err.details as { engineErrorType?: string } | undefined)?.engineErrorType === "index_closed_exception";
}

/** Wrappers whose meaning is their causes'. */
const WRAPPER_TYPES = new Set(["search_phase_execution_exception", "remote_transport_exception", "transport_exception"]);

/**
 * The one place that decides what an engine failure means for neardup's
 * caller. `scope` says what was refused: a `request` neardup built (search,
 * mapping, template) or one `document` of a bulk, whose body is the client's.
 *
 * - Overload and unavailability are ENGINE_UNAVAILABLE (503, retryable): HTTP
 *   429/503/504, a rejected execution or tripped breaker, a cluster block that
 *   says "not now" (no master, flood stage), and "all shards
 *   failed" when every shard failure is a shard that is not there yet (an
 *   engine restart) or when no shard could even be asked.
 * - 409 is CONFLICT and 404 NOT_FOUND.
 * - A 400 or 413 refusing a document (a type conflict, too many fields, too
 *   deep) is the client's data: INVALID_INPUT (400). The same status on a
 *   request neardup built is neardup's or the index's problem: ENGINE_ERROR.
 * - Everything else is ENGINE_ERROR (502).
 */
export function classifyEngineFailure(failure: EngineFailure, scope: "request" | "document"): ErrorCode {
  const { status, type, reason } = failure;
  const causes = failure.causes.filter((c) => !WRAPPER_TYPES.has(c));
  if (status === 429 || status === 503 || status === 504) return "ENGINE_UNAVAILABLE";
  if (UNAVAILABLE_TYPES.has(type) || isUnavailableBlock(type, reason)) return "ENGINE_UNAVAILABLE";
  if (WRAPPER_TYPES.has(type)) {
    if (causes.length > 0 && causes.every((c) => UNAVAILABLE_TYPES.has(c))) return "ENGINE_UNAVAILABLE";
    if (causes.length === 0 && /all shards failed/i.test(reason)) return "ENGINE_UNAVAILABLE";
  }
  if (status === 409) return "CONFLICT";
  if (status === 404) return "NOT_FOUND";
  if ((status === 400 || status === 413) && scope === "document") return "INVALID_INPUT";
  return "ENGINE_ERROR";
}

/** The request path an engine refusal names (`field [fields.a.b]`), when it is under `fields`. */
function refusedPath(reason: string): string | undefined {
  const named = /field \[(fields(?:\.[^\]]*)?)\]/.exec(reason)?.[1];
  if (named) return named;
  return /Limit of total fields|Limit of mapping depth|Limit of nested fields/.test(reason) ? "fields" : undefined;
}

/**
 * The error for one refused `_bulk` item: INVALID_INPUT naming the part of
 * `fields` the engine refused (`items[3].fields.n`), ENGINE_UNAVAILABLE for an
 * overloaded or recovering shard, ENGINE_ERROR otherwise. `field` names the
 * document in the request (`items[3]`, or `body` for a single document).
 */
export function bulkItemError(item: BulkItemResult, id: string, field: string): NeardupError {
  const error = item.error ?? { type: "unknown", reason: `HTTP ${item.status}` };
  const classified = classifyEngineFailure({ status: item.status, type: error.type, reason: error.reason, causes: error.causes ?? [] }, "document");
  // A refusal of neardup's own fields is the index's mapping at fault, not the client's document.
  const code = classified === "INVALID_INPUT" && /field \[neardup\./.test(error.reason) ? "ENGINE_ERROR" : classified;
  const path = code === "INVALID_INPUT" ? refusedPath(error.reason) : undefined;
  const at = path === undefined ? field : field === "body" ? path : `${field}.${path}`;
  const what = code === "ENGINE_UNAVAILABLE" ? "could not store" : "refused";
  return new NeardupError(code, `the engine ${what} document ${JSON.stringify(id)}: ${error.type}: ${error.reason}`, {
    field: at,
    details: { status: item.status, engineErrorType: error.type },
  });
}
