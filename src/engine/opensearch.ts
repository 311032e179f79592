import { Client, type ClientOptions } from "@opensearch-project/opensearch";
import { createGuard, createIfAbsent, orUndefinedIfMissing, whyRefused } from "./guard.js";
import { statusOf } from "./errors.js";
import { mapsFieldIn, toFieldTypes, msearchLines, refreshIntervalFrom, searchParams, toAliasedIndices, toWriteAliases, toAliasNames, toBulkResult, toMsearchResults, toRolloverResult, toSourceMap, toSourceSettings, toResolvedIndices, termStatisticsBody, toDocFrequencies, TERM_STATISTICS_FILTER, toVersioned, toRefreshCounts, toSeqNoCheckpoints, toBulkTaskIds, BULK_ACTION } from "./responses.js";
import type { AliasedIndex, BulkOptions, BulkResult, Engine, EngineConnection, EngineInfo, PointInTimePage, PutOptions, RolloverResult, SearchRequest, SearchResponse, SourceSettings, Versioned } from "./types.js";

/** Builds the OpenSearch client options; also used to probe an unknown engine's root endpoint. */
export function openSearchClientOptions(connection: EngineConnection): ClientOptions {
  const options: ClientOptions = {
    node: connection.url,
    requestTimeout: connection.requestTimeoutMs ?? 30_000,
    maxRetries: connection.maxRetries ?? 2,
  };
  if (connection.username) options.auth = { username: connection.username, password: connection.password ?? "" };
  if (connection.apiKey) options.headers = { authorization: `ApiKey ${connection.apiKey}` };
  if (connection.caCert) options.ssl = { ca: connection.caCert };
  return options;
}

/** OpenSearch 2.x/3.x through `@opensearch-project/opensearch`. */
export class OpenSearchEngine implements Engine {
  readonly kind = "opensearch" as const;
  private readonly client: Client;
  private readonly guard;

  constructor(
    connection: EngineConnection,
    readonly info: EngineInfo,
  ) {
    this.client = new Client(openSearchClientOptions(connection));
    this.guard = createGuard("opensearch", connection.url);
  }

  waitForPrimaries(index: string, timeoutMs: number): Promise<boolean> {
    return this.guard(`wait for the shards of ${index}`, async () => {
      try {
        const response = (await this.client.cluster.health({ index, wait_for_status: "yellow", timeout: `${Math.max(1, Math.round(timeoutMs))}ms` })).body as { timed_out?: boolean };
        return response.timed_out !== true;
      } catch (err) {
        if (statusOf(err) === 408) return false; // the engine's answer to a wait that timed out
        throw err;
      }
    });
  }

  health(index?: string): Promise<string> {
    return this.guard("cluster health", async () => {
      if (index === undefined) return String((await this.client.cluster.health()).body.status);
      try {
        return String((await this.client.cluster.health({ index, timeout: "0s" })).body.status);
      } catch (err) {
        // With no wait asked for, the engine's 408 means the name matched no index (its "timed out" answer).
        if (statusOf(err) === 408) return "missing";
        throw err;
      }
    });
  }

  putComponentTemplate(name: string, body: Record<string, unknown>): Promise<void> {
    return this.guard(`put component template ${name}`, async () => {
      await this.client.cluster.putComponentTemplate({ name, body } as never);
    });
  }

  putIndexTemplate(name: string, body: Record<string, unknown>): Promise<void> {
    return this.guard(`put index template ${name}`, async () => {
      await this.client.indices.putIndexTemplate({ name, body } as never);
    });
  }

  mapsField(index: string, field: string): Promise<boolean> {
    return this.guard(`field mapping ${index}`, async () => mapsFieldIn((await orUndefinedIfMissing(() => this.client.indices.getFieldMapping({ index, fields: field } as never)))?.body, field));
  }

  fieldTypes(index: string, fields: readonly string[]): Promise<Map<string, string[]>> {
    return this.guard(`field mapping ${index}`, async () => toFieldTypes((await orUndefinedIfMissing(() => this.client.indices.getFieldMapping({ index, fields: [...fields] } as never)))?.body));
  }

  sourceSettings(index: string): Promise<SourceSettings[]> {
    return this.guard(`mapping ${index}`, async () => toSourceSettings((await orUndefinedIfMissing(() => this.client.indices.getMapping({ index })))?.body));
  }

  templateMappings(name: string): Promise<Record<string, unknown>> {
    return this.guard(`simulate index ${name}`, async () => {
      const answer = (await this.client.indices.simulateIndexTemplate({ name } as never)).body as { template?: { mappings?: Record<string, unknown> } };
      return answer.template?.mappings ?? {};
    });
  }

  deleteIndexTemplate(name: string): Promise<void> {
    return this.guard(`delete index template ${name}`, async () => {
      await orUndefinedIfMissing(() => this.client.indices.deleteIndexTemplate({ name }));
    });
  }

  createIndex(name: string, body: Record<string, unknown> = {}): Promise<boolean> {
    return this.guard(`create index ${name}`, () => createIfAbsent(() => this.client.indices.create({ index: name, body } as never)));
  }

  deleteIndex(name: string): Promise<void> {
    return this.guard(`delete index ${name}`, async () => {
      await this.client.indices.delete({ index: name, ignore_unavailable: true });
    });
  }

  putMapping(index: string, mappings: Record<string, unknown>): Promise<void> {
    return this.guard(`put mapping ${index}`, async () => {
      await this.client.indices.putMapping({ index, body: mappings } as never);
    });
  }

  indexExists(name: string): Promise<boolean> {
    return this.guard(`index exists ${name}`, async () => {
      try {
        return Boolean((await this.client.indices.exists({ index: name })).body);
      } catch (err) {
        // HEAD answers a block on the index (`index.blocks.metadata`) with a bare 403: the GET's body names it.
        throw await whyRefused(err, () => this.client.indices.get({ index: name }));
      }
    });
  }

  bulk(operations: Record<string, unknown>[], options: BulkOptions = {}): Promise<BulkResult> {
    return this.guard("bulk", async () => {
      const params = { body: operations, ...(options.refresh === undefined ? {} : { refresh: options.refresh }) };
      options.beforeSend?.();
      const response = await this.client.bulk(params as never, options.beforeSend ? { maxRetries: 0 } : {});
      return toBulkResult(response.body as never);
    });
  }

  search<T>(request: SearchRequest): Promise<SearchResponse<T>> {
    return this.guard(`search ${request.index}`, async () => {
      const response = await this.client.search({ index: request.index, body: request.body, ...searchParams(request) } as never);
      return response.body as unknown as SearchResponse<T>;
    });
  }

  msearch<T>(requests: SearchRequest[]): Promise<(SearchResponse<T> | Error)[]> {
    return this.guard("msearch", async () => {
      const response = await this.client.msearch({ body: msearchLines(requests) } as never);
      return toMsearchResults<T>(response.body as never);
    });
  }

  mget<T>(index: string, ids: string[], sourceFields?: string[]): Promise<Map<string, T>> {
    return this.guard(`mget ${index}`, async () => {
      if (ids.length === 0) return new Map();
      const response = await this.client.mget({ index, body: { ids }, ...(sourceFields ? { _source_includes: sourceFields } : {}) } as never);
      return toSourceMap<T>((response.body as { docs: never[] }).docs);
    });
  }

  get<T>(index: string, id: string): Promise<T | undefined> {
    return this.guard(`get ${index}/${id}`, async () => {
      const response = await orUndefinedIfMissing(() => this.client.get({ index, id }));
      return (response?.body as { _source?: T } | undefined)?._source;
    });
  }

  refresh(index: string): Promise<void> {
    return this.guard(`refresh ${index}`, async () => {
      await this.client.indices.refresh({ index });
    });
  }

  refreshIntervalMs(index: string): Promise<number> {
    return this.guard(`get settings ${index}`, async () => {
      const response = await this.client.indices.getSettings({ index, include_defaults: true, name: "index.refresh_interval" } as never);
      return refreshIntervalFrom(response.body as never);
    });
  }

  getVersioned<T>(index: string, id: string): Promise<Versioned<T> | undefined> {
    return this.guard(`get ${index}/${id}`, async () => {
      const response = await orUndefinedIfMissing(() => this.client.get({ index, id }));
      return toVersioned<T>(response?.body as never);
    });
  }

  putDocument(index: string, id: string, source: Record<string, unknown>, options: PutOptions = {}): Promise<{ seqNo: number; primaryTerm: number }> {
    return this.guard(`put ${index}/${id}`, async () => {
      const params = {
        index,
        id,
        body: source,
        ...(options.create ? { op_type: "create" } : {}),
        ...(options.ifSeqNo === undefined ? {} : { if_seq_no: options.ifSeqNo, if_primary_term: options.ifPrimaryTerm }),
        ...(options.refresh === undefined ? {} : { refresh: options.refresh }),
      };
      const body = (await this.client.index(params as never)).body as { _seq_no: number; _primary_term: number };
      return { seqNo: body._seq_no, primaryTerm: body._primary_term };
    });
  }

  openPointInTime(index: string, keepAlive: string): Promise<string> {
    return this.guard(`open point in time ${index}`, async () => {
      const response = await this.client.transport.request({ method: "POST", path: `/${encodeURIComponent(index)}/_search/point_in_time`, querystring: { keep_alive: keepAlive } });
      return (response.body as { pit_id: string }).pit_id;
    });
  }

  closePointInTime(id: string): Promise<void> {
    return this.guard("close point in time", async () => {
      await orUndefinedIfMissing(() => this.client.transport.request({ method: "DELETE", path: "/_search/point_in_time", body: { pit_id: [id] } }));
    });
  }

  searchPointInTime<T>(pitId: string, keepAlive: string, body: Record<string, unknown>): Promise<PointInTimePage<T>> {
    return this.guard("search point in time", async () => {
      // OpenSearch has no `_shard_doc`: `_id` breaks ties so search_after never skips or repeats a hit.
      const sort = [...((body.sort as unknown[] | undefined) ?? []), { _id: "asc" }];
      const response = await this.client.search({ body: { ...body, sort, pit: { id: pitId, keep_alive: keepAlive } } } as never);
      const page = response.body as unknown as SearchResponse<T> & { pit_id?: string };
      return { ...page, pitId: page.pit_id ?? pitId };
    });
  }

  aliasIndices(alias: string): Promise<AliasedIndex[]> {
    return this.guard(`get alias ${alias}`, async () => {
      // Named as the index too, never `GET _alias/<alias>` alone: see toAliasedIndices (responses.ts).
      const response = await orUndefinedIfMissing(() => this.client.indices.getAlias({ index: alias, name: alias }));
      return response ? toAliasedIndices(response.body as never, alias) : [];
    });
  }

  writeAliasesOf(index: string): Promise<string[]> {
    return this.guard(`get aliases of ${index}`, async () => toWriteAliases(await this.aliasesAnswer(index), index));
  }

  aliasesOf(index: string): Promise<string[]> {
    return this.guard(`get aliases of ${index}`, async () => toAliasNames(await this.aliasesAnswer(index)));
  }

  /** `GET <index>/_alias`; {} for a missing index. */
  private async aliasesAnswer(index: string): Promise<never> {
    return ((await orUndefinedIfMissing(() => this.client.indices.getAlias({ index })))?.body as never) ?? ({} as never);
  }

  rollover(alias: string): Promise<RolloverResult> {
    return this.guard(`rollover ${alias}`, async () => toRolloverResult((await this.client.indices.rollover({ alias })).body as never));
  }

  resolveIndices(name: string): Promise<string[]> {
    return this.guard(`resolve ${name}`, async () => {
      const response = await orUndefinedIfMissing(() => this.client.transport.request({ method: "GET", path: `/_resolve/index/${encodeURIComponent(name)}` }));
      return response ? toResolvedIndices(response.body as never) : [];
    });
  }

  termDocFrequencies(indices: readonly string[], field: string, terms: readonly string[]): Promise<Map<string, number>> {
    if (indices.length === 0 || terms.length === 0) return Promise.resolve(new Map());
    return this.guard(`term statistics ${field}`, async () => {
      const response = await this.client.transport.request({ method: "POST", path: "/_mtermvectors", querystring: { filter_path: TERM_STATISTICS_FILTER }, body: termStatisticsBody(indices, field, terms) });
      return toDocFrequencies(response.body as never, field);
    });
  }

  seqNoCheckpoints(index: string): Promise<{ index: string; shard: string; checkpoint: number }[]> {
    return this.guard(`sequence number stats ${index}`, async () => toSeqNoCheckpoints((await this.client.indices.stats({ index, metric: "docs", level: "shards" } as never)).body as never));
  }

  runningBulks(names: readonly string[]): Promise<string[]> {
    return this.guard("list bulk tasks", async () => toBulkTaskIds((await this.client.tasks.list({ actions: BULK_ACTION, detailed: true } as never)).body as never, names));
  }

  refreshCounts(index: string): Promise<Map<string, number>> {
    return this.guard(`refresh stats ${index}`, async () => {
      const response = await this.client.indices.stats({ index, metric: "refresh", level: "shards" } as never);
      return toRefreshCounts(response.body as never);
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
