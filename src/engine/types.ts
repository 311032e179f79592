/**
 * The engine seam: one interface, one adapter per engine (Elasticsearch via
 * `@elastic/elasticsearch`, OpenSearch via `@opensearch-project/opensearch`).
 * The Elastic client refuses to talk to OpenSearch, so both are needed.
 *
 * Request and response bodies are the engines' own JSON (the query DSL is the
 * same for the term/terms/bool/range queries neardup uses); adapters only
 * normalise the client calling conventions and turn errors into NeardupError.
 */

export type EngineKind = "elasticsearch" | "opensearch";

/** An index's `_source` mapping: whether it is stored, and the paths it leaves out or keeps (source filtering). */
export interface SourceSettings {
  enabled: boolean;
  includes: string[];
  excludes: string[];
}

/** How to reach an engine. Secrets live here and nowhere else. */
export interface EngineConnection {
  /** Base URL, e.g. `http://127.0.0.1:9200`. Credentials in the URL are accepted but prefer `username`/`password`. */
  url: string;
  /** Basic auth user name. */
  username?: string | undefined;
  /** Basic auth password. */
  password?: string | undefined;
  /** Elasticsearch API key (base64 `id:key`), sent as `Authorization: ApiKey ...`. */
  apiKey?: string | undefined;
  /** PEM text of a CA certificate to trust for https URLs. */
  caCert?: string | undefined;
  /** Per-request timeout in milliseconds. Default 30,000. */
  requestTimeoutMs?: number | undefined;
  /** Retries the client makes on connection errors. Default 2. */
  maxRetries?: number | undefined;
}

export interface EngineInfo {
  kind: EngineKind;
  /** Server version, e.g. `2.19.6`. */
  version: string;
  /** Major version number. */
  major: number;
  clusterName: string;
}

export interface SearchHit<TSource> {
  _id: string;
  _index: string;
  _score: number | null;
  _source?: TSource;
  /** Values of `docvalue_fields` / `fields` requested by the search. */
  fields?: Record<string, unknown[]>;
  sort?: unknown[];
  /** With `seq_no_primary_term: true`: the version the hit was read at. */
  _seq_no?: number;
  _primary_term?: number;
}

export interface SearchResponse<TSource> {
  took: number;
  hits: { total: { value: number; relation: string } | number; hits: SearchHit<TSource>[] };
  aggregations?: Record<string, unknown>;
  /** Shards asked and how many failed; a search with failed shards saw only part of the index. */
  _shards?: { total: number; successful: number; failed: number; failures?: { reason?: { type?: string; reason?: string | null } }[] };
}

export interface BulkItemResult {
  /** `index`, `create`, `update` or `delete`. */
  action: string;
  id: string;
  status: number;
  /** Present when the item failed: `type: reason`, and the types of the errors behind it. */
  error?: { type: string; reason: string; causes?: string[] };
}

export interface BulkResult {
  errors: boolean;
  items: BulkItemResult[];
}

/** One page of a point-in-time search (see {@link Engine.searchPointInTime}). */
export interface PointInTimePage<TSource> extends SearchResponse<TSource> {
  /** The point in time's id to use for the next page (engines may change it). */
  pitId: string;
}

export interface SearchRequest {
  /** Index, alias or pattern (comma-separated lists too). */
  index: string;
  /** The engine's search body (query, size, _source, aggs, sort ...). */
  body: Record<string, unknown>;
  /**
   * Answer with no hits, instead of an error, for indices that do not exist
   * (`ignore_unavailable` + `allow_no_indices`): a read over a time-based
   * window must not fail while a lifecycle policy deletes its oldest index.
   */
  ignoreUnavailable?: boolean;
}

/** An index behind an alias. */
export interface AliasedIndex {
  index: string;
  /** The index writes through the alias go to. */
  writeIndex: boolean;
}

/** What `_rollover` did. */
export interface RolloverResult {
  rolledOver: boolean;
  oldIndex: string;
  newIndex: string;
}

export interface Versioned<TSource> {
  source: TSource;
  seqNo: number;
  primaryTerm: number;
}

export interface PutOptions {
  /** Only create: CONFLICT when the id exists. */
  create?: boolean;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  refresh?: boolean | "wait_for";
}

/** How `Engine.bulk` sends its request. */
export interface BulkOptions {
  refresh?: boolean | "wait_for";
  /**
   * Called right before each request of the write leaves this process, which is sent only if it returns (it
   * throws to stop the write): a writer's check that it may still write (the writer lease). With it the client
   * never sends the request again on its own (after a timeout or a 502-504): a resend would leave long after the
   * check, unchecked (audit 19, F2: a holder paused after its check wrote a stale decision).
   */
  beforeSend?: () => void;
}

/** What the rest of neardup needs from a search engine. */
export interface Engine {
  readonly kind: EngineKind;
  readonly info: EngineInfo;
  /**
   * Cluster health status (`green`, `yellow`, `red`); with `index` (a name, an alias or a pattern), that of its
   * indices alone, answered at once (`timeout=0s`: no wait for a status), or `missing` when the name matches no index.
   */
  health(index?: string): Promise<string>;
  /**
   * Waits up to `timeoutMs` until every primary shard of the index (alias or pattern: every index behind it) is
   * active (health yellow); true when they are, false on the timeout. An index another writer has just created
   * exists before its shards can answer a search ("all shards failed").
   */
  waitForPrimaries(index: string, timeoutMs: number): Promise<boolean>;
  putComponentTemplate(name: string, body: Record<string, unknown>): Promise<void>;
  putIndexTemplate(name: string, body: Record<string, unknown>): Promise<void>;
  /** Deletes a composable index template; no error when it does not exist. */
  deleteIndexTemplate(name: string): Promise<void>;
  /** The mappings an index of this name would get from the composable index templates (`{}` when none matches). */
  templateMappings(name: string): Promise<Record<string, unknown>>;
  /** Creates the index; resolves `false` when it already exists. */
  createIndex(name: string, body?: Record<string, unknown>): Promise<boolean>;
  deleteIndex(name: string): Promise<void>;
  /** Adds fields to an existing index's mapping (a conflicting change is refused by the engine). */
  putMapping(index: string, mappings: Record<string, unknown>): Promise<void>;
  indexExists(name: string): Promise<boolean>;
  /** True when `index` (an index, or every index behind an alias or pattern) exists and maps `field`. */
  mapsField(index: string, field: string): Promise<boolean>;
  /**
   * The mapped types of those of `fields` that some index `index` names maps (`GET <index>/_mapping/field/<fields>`):
   * leaf fields and multi-fields (`x.keyword`), each with its types over the indices. Objects and the keys of a
   * `flattened` / `flat_object` field are not listed; nor is anything when no index has the name.
   */
  fieldTypes(index: string, fields: readonly string[]): Promise<Map<string, string[]>>;
  /** The `_source` settings of the indices `index` names (`GET <index>/_mapping`), one entry an index. */
  sourceSettings(index: string): Promise<SourceSettings[]>;
  /** Bulk operations in the engine's NDJSON order (action line, then source line). */
  bulk(operations: Record<string, unknown>[], options?: BulkOptions): Promise<BulkResult>;
  search<TSource>(request: SearchRequest): Promise<SearchResponse<TSource>>;
  /**
   * Several searches in one round trip; each result or the error for that search.
   * The adapters' errors are NeardupErrors classified like whole-request errors
   * (an overloaded or recovering shard is ENGINE_UNAVAILABLE), with the engine's
   * `status` and `engineErrorType` in `details`.
   */
  msearch<TSource>(requests: SearchRequest[]): Promise<(SearchResponse<TSource> | Error)[]>;
  /** Sources of several documents by id (only `sourceFields` when given); missing ids are absent from the map. */
  mget<TSource>(index: string, ids: string[], sourceFields?: string[]): Promise<Map<string, TSource>>;
  /** The document's source, or `undefined` when it does not exist. */
  get<TSource>(index: string, id: string): Promise<TSource | undefined>;
  refresh(index: string): Promise<void>;
  /**
   * The index's refresh interval in milliseconds (its setting, else the engine default of 1 s);
   * `-1` when refresh is disabled. With several indices (an alias), the longest.
   */
  refreshIntervalMs(index: string): Promise<number>;
  /** A realtime read of one document with its version (sequence number and primary term), or `undefined`. */
  getVersioned<TSource>(index: string, id: string): Promise<Versioned<TSource> | undefined>;
  /**
   * Writes one document: `create` fails with CONFLICT when the id exists; `ifSeqNo` + `ifPrimaryTerm`
   * fail with CONFLICT unless the stored version is exactly that one (optimistic concurrency).
   */
  putDocument(index: string, id: string, source: Record<string, unknown>, options?: PutOptions): Promise<{ seqNo: number; primaryTerm: number }>;
  /** Opens a point in time on the index (ES `_pit`, OpenSearch `_search/point_in_time`); resolves its id. `keepAlive` like `5m`. */
  openPointInTime(index: string, keepAlive: string): Promise<string>;
  /** Closes a point in time; an unknown or expired one is not an error. */
  closePointInTime(id: string): Promise<void>;
  /**
   * One page of a search in a point in time, for reading a whole index in
   * order with `search_after`. `body` holds `size`, `sort`, `_source`,
   * `search_after`...; the adapter adds the point in time and the engine's
   * tiebreaker (Elasticsearch: the implicit `_shard_doc`; OpenSearch: `_id`),
   * so every hit's `sort` is unique.
   */
  searchPointInTime<TSource>(pitId: string, keepAlive: string, body: Record<string, unknown>): Promise<PointInTimePage<TSource>>;
  /**
   * The indices behind an alias; [] when there is no such alias. Only the indices behind the name are read: a
   * block on another index of the cluster has no effect on it.
   */
  aliasIndices(alias: string): Promise<AliasedIndex[]>;
  /**
   * The aliases whose writes go to the concrete index `index` as its write index (`is_write_index: true`) and
   * that read all of it (no filter or routing), sorted; [] for an index without one, a missing index, or an alias name.
   */
  writeAliasesOf(index: string): Promise<string[]>;
  /** Every alias of the indices `index` (an index, alias or pattern) stands for, sorted; [] when there are none. */
  aliasesOf(index: string): Promise<string[]>;
  /** Rolls a write alias over to a new index (the `_rollover` API, no conditions). */
  rollover(alias: string): Promise<RolloverResult>;
  /**
   * The concrete indices an index name, alias, data stream or pattern stands
   * for (`_resolve/index`), sorted; [] when it matches nothing.
   */
  resolveIndices(name: string): Promise<string[]>;
  /**
   * How many documents hold each term in a keyword field, summed over the
   * given concrete indices (term statistics of `_mtermvectors` on an artificial
   * document: an index dictionary lookup per term, no document is read).
   * Index statistics: documents deleted but not yet merged away still count,
   * and so do documents outside any time window. Terms no document holds are
   * absent from the map; an index deleted meanwhile counts for nothing.
   */
  termDocFrequencies(indices: readonly string[], field: string, terms: readonly string[]): Promise<Map<string, number>>;
  /**
   * How many refreshes that open a new searcher (`refresh.external_total`) each shard copy of the index
   * (alias or pattern: every index behind it) has ended, keyed `index/shard/node/p|r`. A copy whose count
   * grew by two between two reads ended a refresh that started after the first read.
   */
  refreshCounts(index: string): Promise<Map<string, number>>;
  /**
   * The local checkpoint of each primary shard of the index: every operation with a sequence number up to
   * it has been processed on that shard, so a refresh that starts after the read shows them all.
   */
  seqNoCheckpoints(index: string): Promise<{ index: string; shard: string; checkpoint: number }[]>;
  /**
   * Task ids of the `_bulk` requests running in the cluster (`_tasks`) that write to one of `names` (as their
   * client named the index: an alias is not resolved), sorted. A request still being sent is not listed yet.
   */
  runningBulks(names: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}
