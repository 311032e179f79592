import type { AliasedIndex, BulkItemResult, BulkResult, RolloverResult, SearchResponse } from "./types.js";
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

/** Search URL parameters of a request (`ignoreUnavailable`). */
export function searchParams(request: { ignoreUnavailable?: boolean | undefined }): Record<string, boolean> {
  return request.ignoreUnavailable ? { ignore_unavailable: true, allow_no_indices: true } : {};
}

/** `{ index: name }` header + body pairs, the NDJSON layout `_msearch` expects. */
export function msearchLines(requests: { index: string; body: Record<string, unknown>; ignoreUnavailable?: boolean | undefined }[]): Record<string, unknown>[] {
  return requests.flatMap((r) => [{ index: r.index, ...searchParams(r) }, r.body]);
}

/** `GET _alias/<name>` body (index -> aliases) as the indices behind `alias`. */
export function toAliasedIndices(body: Record<string, { aliases?: Record<string, { is_write_index?: boolean }> }>, alias: string): AliasedIndex[] {
  const out: AliasedIndex[] = [];
  for (const [index, entry] of Object.entries(body ?? {})) {
    const a = entry.aliases?.[alias];
    if (a) out.push({ index, writeIndex: a.is_write_index === true });
  }
  // An alias over one index without is_write_index writes to that index.
  const only = out.length === 1 ? body[out[0]!.index]?.aliases?.[alias] : undefined;
  if (only && !("is_write_index" in only)) out[0]!.writeIndex = true;
  return out.sort((x, y) => (x.index < y.index ? -1 : x.index > y.index ? 1 : 0));
}

/** `_rollover` response body. */
export function toRolloverResult(body: { rolled_over?: boolean; old_index?: string; new_index?: string }): RolloverResult {
  return { rolledOver: body.rolled_over === true, oldIndex: body.old_index ?? "", newIndex: body.new_index ?? "" };
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
