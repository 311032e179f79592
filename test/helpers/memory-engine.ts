/**
 * An in-memory engine double for unit tests of the decision logic: realtime
 * get/mget, search that sees only what the last refresh made searchable (as a
 * real engine does), the query DSL subset neardup sends (bool, term, terms,
 * range, ids, exists, match_all; sort, search_after, size; terms aggregation;
 * docvalue_fields, _source filtering, `stored_fields: _none_`) and optimistic concurrency. Faults
 * come from test/helpers/faulty-engine.ts wrapped around it.
 */
import { NeardupError } from "../../src/core/errors.js";
import type { AliasedIndex, BulkItemResult, BulkOptions, BulkResult, Engine, EngineInfo, PutOptions, SearchHit, SearchRequest, SearchResponse, Versioned } from "../../src/engine/types.js";

type Source = Record<string, unknown>;
interface Stored {
  source: Source;
  seqNo: number;
  primaryTerm: number;
}

function valuesAt(source: Source, path: string): unknown[] {
  let cur: unknown = source;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return [];
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return [];
  return Array.isArray(cur) ? cur : [cur];
}

function asNumber(v: unknown): number {
  if (typeof v === "number") return v;
  const n = Number(v);
  return Number.isFinite(n) ? n : Date.parse(String(v));
}

/** The query's score for the document (leaf queries score 1, constant_score its boost, bool the sum of what matched), or null when it does not match. */
function score(q: Record<string, unknown>, id: string, source: Source): number | null {
  const [kind, body] = Object.entries(q)[0] as [string, Record<string, unknown>];
  const hit = (ok: boolean) => (ok ? 1 : null);
  switch (kind) {
    case "match_all":
      return 1;
    case "ids":
      return hit((body.values as string[]).includes(id));
    case "term": {
      const [field, value] = Object.entries(body)[0]!;
      const v = typeof value === "object" && value !== null && "value" in value ? (value as { value: unknown }).value : value;
      const have = field === "_id" ? [id] : valuesAt(source, field);
      return hit(have.some((h) => h === v || (field.endsWith("timestamp") && asNumber(h) === asNumber(v))));
    }
    case "terms": {
      const [field, values] = Object.entries(body)[0] as [string, unknown[]];
      const have = field === "_id" ? [id] : valuesAt(source, field);
      return hit(have.some((v) => values.includes(v)));
    }
    case "exists":
      return hit(valuesAt(source, body.field as string).length > 0);
    case "range": {
      const [field, r] = Object.entries(body)[0] as [string, Record<string, unknown>];
      return hit(
        valuesAt(source, field).some((raw) => {
          const v = asNumber(raw);
          if (r.gte !== undefined && !(v >= asNumber(r.gte))) return false;
          if (r.gt !== undefined && !(v > asNumber(r.gt))) return false;
          if (r.lte !== undefined && !(v <= asNumber(r.lte))) return false;
          if (r.lt !== undefined && !(v < asNumber(r.lt))) return false;
          return true;
        }),
      );
    }
    case "constant_score":
      return score(body.filter as Record<string, unknown>, id, source) === null ? null : Number(body.boost ?? 1);
    case "bool": {
      const arr = (k: string) => {
        const v = (body[k] ?? []) as Record<string, unknown>[] | Record<string, unknown>;
        return Array.isArray(v) ? v : [v];
      };
      if (!arr("filter").every((c) => score(c, id, source) !== null)) return null;
      if (arr("must_not").some((c) => score(c, id, source) !== null)) return null;
      let total = 0;
      for (const c of arr("must")) {
        const sc = score(c, id, source);
        if (sc === null) return null;
        total += sc;
      }
      const should = arr("should");
      if (should.length > 0) {
        const need = Number(body.minimum_should_match ?? (arr("filter").length + arr("must").length > 0 ? 0 : 1));
        const scores = should.map((c) => score(c, id, source)).filter((x): x is number => x !== null);
        if (scores.length < need) return null;
        total += scores.reduce((a, b) => a + b, 0);
      }
      return total;
    }
    default:
      throw new Error(`memory engine: unsupported query ${kind}`);
  }
}

function pick(source: Source, fields: string[]): Source {
  const out: Source = {};
  for (const f of fields) {
    const parts = f.split(".");
    let from: unknown = source;
    for (const p of parts) from = from && typeof from === "object" ? (from as Source)[p] : undefined;
    if (from === undefined) continue;
    let to = out;
    parts.slice(0, -1).forEach((p) => (to = (to[p] ??= {}) as Source));
    to[parts.at(-1)!] = from;
  }
  return out;
}

export class MemoryEngine implements Engine {
  readonly kind = "opensearch" as const;
  readonly info: EngineInfo = { kind: "opensearch", version: "memory", major: 2, clusterName: "memory" };
  readonly indices = new Map<string, { docs: Map<string, Stored>; searchable: Map<string, Source>; refreshMs: number }>();
  private seq = 0;

  private idx(name: string) {
    let i = this.indices.get(name);
    if (!i) this.indices.set(name, (i = { docs: new Map(), searchable: new Map(), refreshMs: 1000 }));
    return i;
  }

  async health() {
    return "green";
  }
  async waitForPrimaries(_index: string, _timeoutMs: number): Promise<boolean> {
    return true;
  }
  async putComponentTemplate() {}
  async putIndexTemplate() {}
  async createIndex(name: string) {
    if (this.indices.has(name)) return false;
    this.idx(name);
    return true;
  }
  async deleteIndex(name: string) {
    this.indices.delete(name);
  }
  async putMapping() {}
  async indexExists(name: string) {
    return this.indices.has(name);
  }

  async bulk(operations: Record<string, unknown>[], options: BulkOptions = {}): Promise<BulkResult> {
    options.beforeSend?.();
    const items: BulkItemResult[] = [];
    for (let i = 0; i < operations.length; i += 2) {
      const [action, meta] = Object.entries(operations[i]!)[0] as [string, { _index: string; _id: string }];
      const index = this.idx(meta._index);
      const existed = index.docs.has(meta._id);
      index.docs.set(meta._id, { source: structuredClone(operations[i + 1]!), seqNo: ++this.seq, primaryTerm: 1 });
      items.push({ action, id: meta._id, status: existed ? 200 : 201 });
    }
    return { errors: items.some((x) => x.error), items };
  }

  async search<T>(request: SearchRequest): Promise<SearchResponse<T>> {
    const body = request.body as { query?: Record<string, unknown>; size?: number; sort?: unknown[]; search_after?: unknown[]; docvalue_fields?: (string | { field: string })[]; _source?: boolean | string[]; stored_fields?: string; aggs?: Record<string, { terms: { field: string; size?: number } }> };
    const index = this.idx(request.index);
    const scored = [...index.searchable].flatMap(([id, source]) => {
      const sc = score(body.query ?? { match_all: {} }, id, source);
      return sc === null ? [] : [{ id, source, score: sc }];
    });
    const specs = (body.sort ?? []).map((s) => {
      if (typeof s === "string") return { field: s, desc: s === "_score" };
      const [field, o] = Object.entries(s as object)[0] as [string, unknown];
      const order = typeof o === "string" ? o : (o as { order?: string }).order;
      return { field, desc: order === "desc" };
    });
    const key = (h: { id: string; source: Source; score: number }) =>
      specs.map(({ field }) => (field === "_score" ? h.score : field === "_id" ? h.id : field.endsWith("timestamp") ? asNumber(valuesAt(h.source, field)[0]) : valuesAt(h.source, field)[0]));
    const cmp = (a: unknown[], b: unknown[]) => {
      for (let k = 0; k < a.length; k++) {
        if (a[k] === b[k]) continue;
        const lt = typeof a[k] === "number" && typeof b[k] === "number" ? (a[k] as number) < (b[k] as number) : String(a[k]) < String(b[k]);
        return (lt ? -1 : 1) * (specs[k]!.desc ? -1 : 1);
      }
      return 0;
    };
    let hits = scored;
    if (specs.length > 0) {
      hits.sort((a, b) => cmp(key(a), key(b)));
      if (body.search_after) hits = hits.filter((h) => cmp(key(h), body.search_after!) > 0);
    }
    const size = body.size ?? 10;
    const out: SearchHit<T>[] = hits.slice(0, size).map(({ id, source, score: sc }) => {
      const hit: SearchHit<T> = { _id: id, _index: request.index, _score: sc };
      if (body._source !== false) hit._source = (Array.isArray(body._source) ? pick(source, body._source) : source) as T;
      if (body.stored_fields === "_none_") delete (hit as { _id?: string })._id; // as the engines do: `_id` is a stored field
      if (body.docvalue_fields) {
        hit.fields = {};
        for (const f of body.docvalue_fields) {
          const name = typeof f === "string" ? f : f.field;
          const values = valuesAt(source, name).map((v) => (name.endsWith("timestamp") ? String(asNumber(v)) : v));
          if (values.length > 0) hit.fields[name] = values;
        }
      }
      if (specs.length > 0) hit.sort = key({ id, source, score: sc });
      return hit;
    });
    const response: SearchResponse<T> = { took: 0, hits: { total: { value: hits.length, relation: "eq" }, hits: out } };
    if (body.aggs) {
      response.aggregations = {};
      for (const [name, agg] of Object.entries(body.aggs)) {
        const counts = new Map<unknown, number>();
        for (const { source } of hits) for (const v of valuesAt(source, agg.terms.field)) counts.set(v, (counts.get(v) ?? 0) + 1);
        response.aggregations[name] = { buckets: [...counts].slice(0, agg.terms.size ?? 10).map(([k, doc_count]) => ({ key: k, doc_count })) };
      }
    }
    return response;
  }

  async msearch<T>(requests: SearchRequest[]): Promise<(SearchResponse<T> | Error)[]> {
    return Promise.all(requests.map((r) => this.search<T>(r)));
  }

  async mget<T>(index: string, ids: string[], sourceFields?: string[]): Promise<Map<string, T>> {
    const docs = this.idx(index).docs;
    const out = new Map<string, T>();
    for (const id of ids) {
      const d = docs.get(id);
      if (d) out.set(id, (sourceFields ? pick(d.source, sourceFields) : d.source) as T);
    }
    return out;
  }

  async get<T>(index: string, id: string): Promise<T | undefined> {
    return this.idx(index).docs.get(id)?.source as T | undefined;
  }

  async refresh(index: string): Promise<void> {
    const i = this.idx(index);
    i.searchable = new Map([...i.docs].map(([id, d]) => [id, d.source]));
    this.refreshes.set(index, (this.refreshes.get(index) ?? 0) + 1);
  }

  /** Refreshes of each index (one copy, one shard), counted as `refreshCounts` reports them. */
  readonly refreshes = new Map<string, number>();

  async refreshCounts(index: string): Promise<Map<string, number>> {
    return new Map([[`${index}/0/memory/p`, this.refreshes.get(index) ?? 0]]);
  }

  /** Running `_bulk` requests a test sets: task id and the index names each writes to. */
  readonly bulkTasks = new Map<string, string[]>();

  async runningBulks(names: readonly string[]): Promise<string[]> {
    return [...this.bulkTasks].filter(([, indices]) => indices.some((i) => names.includes(i))).map(([id]) => id).sort();
  }

  /** No sequence numbers here: the window mirror, which needs them, is tested against the real engines. */
  async seqNoCheckpoints(): Promise<{ index: string; shard: string; checkpoint: number }[]> {
    return [];
  }

  async refreshIntervalMs(index: string): Promise<number> {
    return this.idx(index).refreshMs;
  }

  async getVersioned<T>(index: string, id: string): Promise<Versioned<T> | undefined> {
    const d = this.idx(index).docs.get(id);
    return d ? { source: structuredClone(d.source) as T, seqNo: d.seqNo, primaryTerm: d.primaryTerm } : undefined;
  }

  async putDocument(index: string, id: string, source: Record<string, unknown>, options: PutOptions = {}) {
    const docs = this.idx(index).docs;
    const cur = docs.get(id);
    if (options.create && cur) throw new NeardupError("CONFLICT", `[${id}]: version conflict, document already exists`);
    if (options.ifSeqNo !== undefined && (!cur || cur.seqNo !== options.ifSeqNo || cur.primaryTerm !== options.ifPrimaryTerm)) {
      throw new NeardupError("CONFLICT", `[${id}]: version conflict`);
    }
    const stored = { source: structuredClone(source), seqNo: ++this.seq, primaryTerm: 1 };
    docs.set(id, stored);
    return { seqNo: stored.seqNo, primaryTerm: stored.primaryTerm };
  }

  async openPointInTime(): Promise<string> {
    throw new Error("memory engine: point in time is not supported");
  }
  async closePointInTime() {}
  async searchPointInTime(): Promise<never> {
    throw new Error("memory engine: point in time is not supported");
  }

  async deleteIndexTemplate() {}
  async mapsField(index: string): Promise<boolean> {
    return this.indices.has(index);
  }
  /** No mappings are kept: nothing is listed. */
  async fieldTypes(): Promise<Map<string, string[]>> {
    return new Map();
  }
  async sourceSettings(index: string): Promise<{ enabled: boolean; includes: string[]; excludes: string[] }[]> {
    return this.indices.has(index) ? [{ enabled: true, includes: [], excludes: [] }] : [];
  }
  async templateMappings(): Promise<Record<string, unknown>> {
    return {};
  }
  async aliasIndices(_alias: string): Promise<AliasedIndex[]> {
    return [];
  }
  async writeAliasesOf(_index: string): Promise<string[]> {
    return [];
  }
  async aliasesOf(_index: string): Promise<string[]> {
    return [];
  }
  async resolveIndices(name: string): Promise<string[]> {
    const pattern = new RegExp(`^${name.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    return [...this.indices.keys()].filter((i) => pattern.test(i)).sort();
  }
  /** Counts over what the last refresh made searchable (real engines' term statistics come from searchable segments too). */
  async termDocFrequencies(indices: readonly string[], field: string, terms: readonly string[]): Promise<Map<string, number>> {
    const wanted = new Set(terms);
    const out = new Map<string, number>();
    for (const name of indices) {
      for (const source of this.indices.get(name)?.searchable.values() ?? []) {
        for (const v of new Set(valuesAt(source, field).map(String))) if (wanted.has(v)) out.set(v, (out.get(v) ?? 0) + 1);
      }
    }
    return out;
  }
  async rollover(): Promise<never> {
    throw new Error("memory engine: rollover is not supported");
  }

  async close() {}
}
