/** Per-item answers of the proxy's `_bulk`, in the engines' own `_bulk` item shape. */
import type { NeardupError } from "../core/errors.js";
import type { IndexResult } from "../service/dedup-service.js";

export type ItemBody = Record<string, unknown>;

/** The verdict carried by every fingerprinted item as `neardup`. */
export function verdictOf(r: IndexResult): Record<string, unknown> {
  return { status: r.status, action: r.action, duplicate_of: r.duplicate_of, distance: r.distance, similarity: r.similarity, reason: r.reason };
}

/** `skip`: the engine's answer to a write that changed nothing. */
export function noopItem(index: string, r: IndexResult): ItemBody {
  return { _index: index, _id: r.id, result: "noop", _shards: { total: 0, successful: 0, failed: 0 }, status: 200, neardup: verdictOf(r) };
}

/** `reject`: a per-item 409 whose error type names neardup and whose reason names the original. */
export function rejectedItem(index: string, r: IndexResult): ItemBody {
  const reason =
    `[${r.id}]: near-duplicate of [${r.duplicate_of}] in [${index}] (distance ${r.distance}, similarity ${r.similarity}, rule ${r.reason}); ` +
    "neardup policy reject did not write it";
  const error = { type: "neardup_duplicate_exception", reason, index, duplicate_of: r.duplicate_of };
  return { _index: index, _id: r.id, status: 409, error, neardup: verdictOf(r) };
}

/** A write the engine accepted, when its own item is not at hand (never expected; kept honest). */
export function writtenItem(index: string, r: IndexResult): ItemBody {
  return { _index: index, _id: r.id, result: "created", status: 201, neardup: verdictOf(r) };
}

/** An item that failed: the engines' per-item error shape (`_id` only when the item has one). */
export function errorItem(index: string, id: string | undefined, status: number, type: string, reason: string): ItemBody {
  return { _index: index, ...(id === undefined ? {} : { _id: id }), status, error: { type, reason, index } };
}

/** Codes of a neardup error that sending the item again may cure: the engine down or overloaded, a writer handover. */
const RETRYABLE = new Set(["ENGINE_UNAVAILABLE", "OVERLOADED", "RETRY"]);

/** An item neardup could not handle (its text was refused, or the index could not be prepared). */
export function neardupErrorItem(index: string, id: string | undefined, err: NeardupError): ItemBody {
  if (RETRYABLE.has(err.code)) return retryItem(index, id, err.message);
  return errorItem(index, id, err.status, `neardup_${err.code.toLowerCase()}_exception`, err.message);
}

/**
 * An item that did not get its answer because the engine was down or overloaded, or a writer handed over: a
 * per-item `429`, whatever the status of the failure behind it (named in `reason`). The clients' bulk helpers and
 * shippers send a `429` item again and report a `503` one failed, never sending it again: with the engine dying
 * mid-bulk, the items of a refused connection got `503` and were dropped where the others got `429` (audit 23, F5).
 * A whole request that failed so keeps its own status.
 */
export function retryItem(index: string, id: string | undefined, reason: string): ItemBody {
  const said = reason.startsWith("neardup: ") ? reason : `neardup: ${reason}`;
  return errorItem(index, id, 429, "es_rejected_execution_exception", /\bagain\b/.test(said) ? said : `${said}; send this item again`);
}

/**
 * Why a batch of items got no per-item answers from the engine: it was down
 * or overloaded (`unavailable`: 503, or 429 when it, or a writer handover,
 * says "later"), or it refused the write request as a whole (`engine`).
 */
export type Failure = { kind: "unavailable"; status: number; reason: string } | { kind: "engine"; status: number; body: unknown };
