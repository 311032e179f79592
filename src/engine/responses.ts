import type { AliasedIndex, BulkItemResult, BulkResult, RolloverResult, SearchResponse, SourceSettings, Versioned } from "./types.js";
import { NeardupError } from "../core/errors.js";
import { globToRegExp } from "../core/glob.js";
import { classifyEngineFailure, engineFailureOf, type EngineFailure } from "./errors.js";

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
      const failure = engineFailureOf({ error: raw.error }, raw.status);
      item.error = failure ? { type: failure.type, reason: failure.reason, causes: failure.causes } : { type: "unknown", reason: JSON.stringify(raw.error) };
    }
    return item;
  });
  return { errors: body.errors, items };
}

/** The NeardupError for a failed `_msearch` entry or `_mget` doc: classified, with the engine's status and type. */
function entryError(failure: EngineFailure, what: string): NeardupError {
  const code = classifyEngineFailure(failure, "request");
  return new NeardupError(code, `${what}: ${failure.type}: ${failure.reason}`, { details: { status: failure.status, engineErrorType: failure.type } });
}

/**
 * Normalises a `_msearch` response: each entry is a search response or a
 * NeardupError that keeps the entry's status (an entry refused with 429 is
 * ENGINE_UNAVAILABLE, as the whole request would be).
 */
export function toMsearchResults<T>(body: { responses: unknown[] }): (SearchResponse<T> | NeardupError)[] {
  return body.responses.map((r, i) => {
    const failure = engineFailureOf(r);
    if (failure) return entryError(failure, `search ${i + 1} of ${body.responses.length}`);
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

/**
 * A `GET <alias>/_alias/<alias>` body (index -> aliases) as the indices behind `alias`. The lookup names `alias`
 * as the index too: for `GET _alias/<alias>` the engine checks the metadata block (`index.blocks.metadata`) of
 * every index in the cluster, so one blocked index anywhere, whatever its name, refused every lookup (audit 22b,
 * F1: every proxy `_bulk` into a rule-matched index failed). Named, it checks only the indices behind the name.
 * The answers are the same otherwise on both engines (OpenSearch 2.19, Elasticsearch 8.19): an alias gives its
 * indices with only this alias, closed ones too; a concrete index (404 "alias [x] missing"), a missing name
 * (404 index_not_found), a data stream (404) or a pattern (`{}`) give none. A metadata block on an index behind
 * `alias` still refuses it (403 cluster_block_exception).
 */
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

type AliasesBody = Record<string, { aliases?: Record<string, { is_write_index?: boolean; filter?: unknown; routing?: unknown; index_routing?: unknown; search_routing?: unknown }> }>;

/**
 * The aliases whose writes go to the concrete index `index` as its write index (`is_write_index: true`) and
 * whose reads see all of it (no filter, no routing), sorted, from `GET <index>/_alias` (`own`). An alias without
 * the flag over this one index reads only this index: reading the index is the same.
 */
export function toWriteAliases(own: AliasesBody, index: string): string[] {
  return Object.entries(own?.[index]?.aliases ?? {})
    .filter(([, a]) => a.is_write_index === true && a.filter === undefined && a.routing === undefined && a.index_routing === undefined && a.search_routing === undefined)
    .map(([alias]) => alias)
    .sort();
}

/** Every alias of the indices in a `GET <name>/_alias` answer, whatever its flags, sorted. */
export function toAliasNames(body: AliasesBody): string[] {
  return [...new Set(Object.values(body ?? {}).flatMap((entry) => Object.keys(entry.aliases ?? {})))].sort();
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

/**
 * `_mget` docs as id -> source, leaving out the ones not found (in a missing
 * index too). A doc the engine could not read (its shard is not available)
 * throws: a text that could not be read must not pass for a missing document.
 */
export function toSourceMap<T>(docs: { _id: string; found?: boolean; _source?: T; error?: unknown }[]): Map<string, T> {
  const out = new Map<string, T>();
  for (const d of docs) {
    const failure = d.error === undefined ? undefined : engineFailureOf({ error: d.error });
    if (failure && failure.type !== "index_not_found_exception") throw entryError(failure, `get ${JSON.stringify(d._id)}`);
    if (d.found && d._source !== undefined) out.set(d._id, d._source);
  }
  return out;
}

const UNITS: Record<string, number> = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An engine time value (`1s`, `500ms`, `-1`) in milliseconds; `-1` stays -1 (disabled). */
export function parseTimeValue(value: string): number {
  if (value.trim() === "-1") return -1;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(nanos|micros|ms|s|m|h|d)\s*$/.exec(value);
  if (!m) throw new Error(`not a time value: ${JSON.stringify(value)}`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

type SettingsBody = Record<string, { settings?: { index?: { refresh_interval?: string } }; defaults?: { index?: { refresh_interval?: string } } }>;

/**
 * The refresh interval of the indices in a get-settings response (with defaults), in ms:
 * the longest of them, or -1 when any has refresh disabled.
 */
export function refreshIntervalFrom(body: SettingsBody): number {
  let longest = 0;
  for (const entry of Object.values(body)) {
    const raw = entry.settings?.index?.refresh_interval ?? entry.defaults?.index?.refresh_interval ?? "1s";
    const ms = parseTimeValue(raw);
    if (ms < 0) return -1;
    longest = Math.max(longest, ms);
  }
  return longest;
}

/** A versioned GET response (`_source`, `_seq_no`, `_primary_term`), or undefined when not found. */
export function toVersioned<T>(body: { found?: boolean; _source?: T; _seq_no?: number; _primary_term?: number } | undefined): Versioned<T> | undefined {
  if (!body || body.found === false || body._source === undefined) return undefined;
  return { source: body._source, seqNo: body._seq_no ?? 0, primaryTerm: body._primary_term ?? 0 };
}

/** `_resolve/index` body as the sorted concrete indices behind it (indices, aliases' indices, data streams' backing indices). */
export function toResolvedIndices(body: { indices?: { name: string }[]; aliases?: { indices?: string[] }[]; data_streams?: { backing_indices?: string[] }[] }): string[] {
  const out = new Set<string>();
  for (const i of body.indices ?? []) out.add(i.name);
  for (const a of body.aliases ?? []) for (const i of a.indices ?? []) out.add(i);
  for (const d of body.data_streams ?? []) for (const i of d.backing_indices ?? []) out.add(i);
  return [...out].sort();
}

/** An artificial document holding `terms` at the dotted `field` path. */
function artificialDoc(field: string, terms: readonly string[]): Record<string, unknown> {
  const parts = field.split(".");
  let doc: Record<string, unknown> = { [parts.pop()!]: [...terms] };
  while (parts.length > 0) doc = { [parts.pop()!]: doc };
  return doc;
}

/** `_mtermvectors` body asking each index for the document frequencies of `terms` in `field`. */
export function termStatisticsBody(indices: readonly string[], field: string, terms: readonly string[]): Record<string, unknown> {
  const doc = artificialDoc(field, terms);
  return {
    docs: indices.map((index) => ({ _index: index, doc, fields: [field], term_statistics: true, field_statistics: false, positions: false, offsets: false })),
  };
}

/** The `filter_path` that keeps only what {@link toDocFrequencies} reads. */
export const TERM_STATISTICS_FILTER = "docs.term_vectors.**.doc_freq,docs.error.type,docs.error.reason";

/**
 * Sums `doc_freq` per term over the `_mtermvectors` answers. An index that is
 * gone (a lifecycle policy deleted it) counts for nothing; any other per-index
 * error throws, so a caller never takes a failure for "rare".
 */
export function toDocFrequencies(body: { docs?: { term_vectors?: Record<string, { terms?: Record<string, { doc_freq?: number }> }>; error?: { type?: string; reason?: string } }[] }, field: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const doc of body.docs ?? []) {
    if (doc.error) {
      if (doc.error.type === "index_not_found_exception") continue;
      throw new Error(`term statistics failed: ${doc.error.type ?? "error"}: ${doc.error.reason ?? ""}`);
    }
    for (const [term, stats] of Object.entries(doc.term_vectors?.[field]?.terms ?? {})) {
      if (stats.doc_freq) out.set(term, (out.get(term) ?? 0) + stats.doc_freq);
    }
  }
  return out;
}

/** `GET <index>/_mapping`'s answer as each index's `_source` settings. */
export function toSourceSettings(answer: unknown): SourceSettings[] {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : typeof v === "string" ? [v] : []);
  return Object.values((answer ?? {}) as Record<string, { mappings?: { _source?: { enabled?: unknown; includes?: unknown; excludes?: unknown } } }>).map((i) => {
    const source = i.mappings?._source ?? {};
    return { enabled: source.enabled !== false && source.enabled !== "false", includes: strings(source.includes), excludes: strings(source.excludes) };
  });
}

/** Whether the pattern names the path or an object above it (`meta` names `meta.text`). */
function namesPath(pattern: string, path: string): boolean {
  const re = globToRegExp(pattern);
  const parts = path.split(".");
  return parts.some((_, k) => re.test(parts.slice(0, k + 1).join(".")));
}

/**
 * Why an index's stored `_source` cannot serve neardup, or `undefined` when it can: neardup reads its own
 * fields and, for the edit rule, the text from `_source`. A path is left out when an exclude pattern names
 * it or an object above it, or when includes are given and none names it (or, for an object, a field in it).
 */
export function sourceProblem(settings: readonly SourceSettings[], paths: readonly string[]): string | undefined {
  for (const s of settings) {
    if (!s.enabled) return "it stores no _source (_source.enabled: false)";
    for (const path of paths) {
      if (s.excludes.some((p) => namesPath(p, path))) return `its _source leaves out ${path} (_source.excludes)`;
      if (s.includes.length > 0 && !s.includes.some((p) => namesPath(p, path) || p.startsWith(`${path}.`))) return `its _source keeps only ${s.includes.join(", ")} (_source.includes), not ${path}`;
    }
  }
  return undefined;
}

/** `GET <index>/_mapping/field/<field>`'s answer (`undefined`: no such index): true when it names an index and each maps the field. */
export function mapsFieldIn(answer: unknown, field: string): boolean {
  const indices = Object.values((answer ?? {}) as Record<string, { mappings?: Record<string, unknown> }>);
  return indices.length > 0 && indices.every((i) => i.mappings?.[field] !== undefined);
}

/** `GET <index>/_mapping/field/<fields>`'s answer (`undefined`: no such index) as field -> its types over the indices, sorted. */
export function toFieldTypes(answer: unknown): Map<string, string[]> {
  const types = new Map<string, Set<string>>();
  for (const index of Object.values((answer ?? {}) as Record<string, { mappings?: Record<string, { mapping?: Record<string, { type?: unknown }> }> }>)) {
    for (const [field, entry] of Object.entries(index.mappings ?? {})) {
      // `mapping` holds one entry, under the field's last name: `{ "keyword": { "type": "keyword" } }` for `x.keyword`.
      for (const leaf of Object.values(entry.mapping ?? {})) {
        if (typeof leaf.type !== "string") continue;
        if (!types.has(field)) types.set(field, new Set());
        types.get(field)!.add(leaf.type);
      }
    }
  }
  return new Map([...types].map(([field, set]) => [field, [...set].sort()]));
}

type ShardCopyStats = { routing?: { node?: string | null; primary?: boolean }; refresh?: { total?: number; external_total?: number }; seq_no?: { local_checkpoint?: number } };
type RefreshStatsBody = { indices?: Record<string, { shards?: Record<string, ShardCopyStats[]> }> };

/** The local checkpoint of each primary shard (`_stats/docs?level=shards`): every operation up to it has been processed there. */
export function toSeqNoCheckpoints(body: RefreshStatsBody): { index: string; shard: string; checkpoint: number }[] {
  const out: { index: string; shard: string; checkpoint: number }[] = [];
  for (const [index, stats] of Object.entries(body.indices ?? {})) {
    for (const [shard, copies] of Object.entries(stats.shards ?? {})) {
      for (const copy of copies) {
        const checkpoint = copy.seq_no?.local_checkpoint;
        if (copy.routing?.primary && typeof checkpoint === "number") out.push({ index, shard, checkpoint });
      }
    }
  }
  return out;
}

interface TasksBody {
  nodes?: Record<string, { tasks?: Record<string, { action?: string; description?: string }> }>;
}

/** The `_bulk` action's task name (its shard-level children add `[s]`). */
export const BULK_ACTION = "indices:data/write/bulk";

/**
 * Ids of the running `_bulk` requests of a `_tasks?detailed=true` answer that write to one of `names`: their
 * description is `requests[n], indices[a, b]`, the names as the client gave them (Elasticsearch 8, OpenSearch 2).
 */
export function toBulkTaskIds(body: TasksBody, names: readonly string[]): string[] {
  const wanted = new Set(names);
  const out: string[] = [];
  for (const node of Object.values(body.nodes ?? {})) {
    for (const [id, task] of Object.entries(node.tasks ?? {})) {
      if (task.action !== BULK_ACTION) continue;
      const listed = /indices\[(.*)\]$/.exec(task.description ?? "")?.[1];
      if (listed !== undefined && listed.split(", ").some((name) => wanted.has(name))) out.push(id);
    }
  }
  return out.sort();
}

/** Ended searcher-opening refreshes per shard copy (`_stats/refresh?level=shards`), keyed `index/shard/node/p|r`. */
export function toRefreshCounts(body: RefreshStatsBody): Map<string, number> {
  const out = new Map<string, number>();
  for (const [index, stats] of Object.entries(body.indices ?? {})) {
    for (const [shard, copies] of Object.entries(stats.shards ?? {})) {
      for (const copy of copies) {
        const refreshes = copy.refresh?.external_total ?? copy.refresh?.total;
        if (typeof refreshes !== "number") continue;
        out.set(`${index}/${shard}/${copy.routing?.node ?? "?"}/${copy.routing?.primary ? "p" : "r"}`, refreshes);
      }
    }
  }
  return out;
}
