import type { BulkItemResult, BulkResult, SearchResponse } from "./types.js";
import { describeEngineError } from "./errors.js";

interface RawBulkItem {
  _id?: string;
  status: number;
  error?: unknown;
}

/** Normalises a `_bulk` response body (same shape on both engines). */
export function toBulkResult(body: { errors: boolean; items: Record<string, RawBulkItem>[] }): BulkResult {
  const items: BulkItemResult[] = body.items.map((entry) => {
    const [action, raw] = Object.entries(entry)[0] as [string, RawBulkItem];
    const item: BulkItemResult = { action, id: raw._id ?? "", status: raw.status };
    if (raw.error !== undefined) {
      item.error = describeEngineError({ error: raw.error }) ?? { type: "unknown", reason: JSON.stringify(raw.error) };
    }
    return item;
  });
  return { errors: body.errors, items };
}

/** Normalises a `_msearch` response: each entry is a search response or an Error naming the engine's reason. */
export function toMsearchResults<T>(body: { responses: unknown[] }): (SearchResponse<T> | Error)[] {
  return body.responses.map((r) => {
    const described = describeEngineError(r);
    if (described) return new Error(`${described.type}: ${described.reason}`);
    return r as SearchResponse<T>;
  });
}

/** `{ index: name }` header + body pairs, the NDJSON layout `_msearch` expects. */
export function msearchLines(requests: { index: string; body: Record<string, unknown> }[]): Record<string, unknown>[] {
  return requests.flatMap((r) => [{ index: r.index }, r.body]);
}

/** Total hit count whichever way the engine reports it. */
export function totalHits(response: SearchResponse<unknown>): number {
  const t = response.hits.total;
  return typeof t === "number" ? t : t.value;
}

/** `_mget` docs as id -> source, leaving out the ones not found. */
export function toSourceMap<T>(docs: { _id: string; found?: boolean; _source?: T }[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const d of docs) if (d.found && d._source !== undefined) out.set(d._id, d._source);
  return out;
}
