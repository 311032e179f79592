import { Client, type ClientOptions } from "@elastic/elasticsearch";
import { createGuard, createIfAbsent, orUndefinedIfMissing, whyRefused } from "./guard.js";
import { statusOf } from "./errors.js";
import { mapsFieldIn, toFieldTypes, msearchLines, refreshIntervalFrom, searchParams, toAliasedIndices, toWriteAliases, toAliasNames, toBulkResult, toMsearchResults, toRolloverResult, toSourceMap, toSourceSettings, toResolvedIndices, termStatisticsBody, toDocFrequencies, TERM_STATISTICS_FILTER, toVersioned, toRefreshCounts, toSeqNoCheckpoints, toBulkTaskIds, BULK_ACTION } from "./responses.js";
import type { AliasedIndex, BulkOptions, BulkResult, Engine, EngineConnection, EngineInfo, PointInTimePage, PutOptions, RolloverResult, SearchRequest, SearchResponse, SourceSettings, Versioned } from "./types.js";

/** Elasticsearch 8.x through `@elastic/elasticsearch` (client major = server major). */
export class ElasticsearchEngine implements Engine {
  readonly kind = "elasticsearch" as const;
  private readonly client: Client;
  private readonly guard;

  constructor(
    connection: EngineConnection,
    readonly info: EngineInfo,
  ) {
    const options: ClientOptions = {
      node: connection.url,
      requestTimeout: connection.requestTimeoutMs ?? 30_000,
      maxRetries: connection.maxRetries ?? 2,
    };
    if (connection.apiKey) options.auth = { apiKey: connection.apiKey };
    else if (connection.username) options.auth = { username: connection.username, password: connection.password ?? "" };
    if (connection.caCert) options.tls = { ca: connection.caCert };
    this.client = new Client(options);
    this.guard = createGuard("elasticsearch", connection.url);
  }

  waitForPrimaries(index: string, timeoutMs: number): Promise<boolean> {
    return this.guard(`wait for the shards of ${index}`, async () => {
      try {
        const response = (await this.client.cluster.health({ index, wait_for_status: "yellow", timeout: `${Math.max(1, Math.round(timeoutMs))}ms` })) as { timed_out?: boolean };
        return response.timed_out !== true;
      } catch (err) {
        if (statusOf(err) === 408) return false; // the engine's answer to a wait that timed out
        throw err;
      }
    });
  }

  health(index?: string): Promise<string> {
    return this.guard("cluster health", async () => {
      if (index === undefined) return String((await this.client.cluster.health()).status);
      try {
        return String((await this.client.cluster.health({ index, timeout: "0s" })).status);
      } catch (err) {
        // With no wait asked for, the engine's 408 means the name matched no index (its "timed out" answer).
        if (statusOf(err) === 408) return "missing";
        throw err;
      }
    });
  }

  putComponentTemplate(name: string, body: Record<string, unknown>): Promise<void> {
    return this.guard(`put component template ${name}`, async () => {
      await this.client.cluster.putComponentTemplate({ name, ...body } as never);
    });
  }

  putIndexTemplate(name: string, body: Record<string, unknown>): Promise<void> {
    return this.guard(`put index template ${name}`, async () => {
      await this.client.indices.putIndexTemplate({ name, ...body } as never);
    });
  }

  mapsField(index: string, field: string): Promise<boolean> {
    return this.guard(`field mapping ${index}`, async () => mapsFieldIn(await orUndefinedIfMissing(() => this.client.indices.getFieldMapping({ index, fields: field } as never)), field));
  }

  fieldTypes(index: string, fields: readonly string[]): Promise<Map<string, string[]>> {
    return this.guard(`field mapping ${index}`, async () => toFieldTypes(await orUndefinedIfMissing(() => this.client.indices.getFieldMapping({ index, fields: [...fields] } as never))));
  }

  sourceSettings(index: string): Promise<SourceSettings[]> {
    return this.guard(`mapping ${index}`, async () => toSourceSettings(await orUndefinedIfMissing(() => this.client.indices.getMapping({ index }))));
  }

  templateMappings(name: string): Promise<Record<string, unknown>> {
    return this.guard(`simulate index ${name}`, async () => {
      const answer = (await this.client.indices.simulateIndexTemplate({ name } as never)) as unknown as { template?: { mappings?: Record<string, unknown> } };
      return answer.template?.mappings ?? {};
    });
  }

  deleteIndexTemplate(name: string): Promise<void> {
    return this.guard(`delete index template ${name}`, async () => {
      await orUndefinedIfMissing(() => this.client.indices.deleteIndexTemplate({ name }));
    });
  }

  createIndex(name: string, body: Record<string, unknown> = {}): Promise<boolean> {
    return this.guard(`create index ${name}`, () => createIfAbsent(() => this.client.indices.create({ index: name, ...body } as never)));
  }

  deleteIndex(name: string): Promise<void> {
    return this.guard(`delete index ${name}`, async () => {
      await this.client.indices.delete({ index: name, ignore_unavailable: true });
    });
  }

  putMapping(index: string, mappings: Record<string, unknown>): Promise<void> {
    return this.guard(`put mapping ${index}`, async () => {
      await this.client.indices.putMapping({ index, ...mappings } as never);
    });
  }

  indexExists(name: string): Promise<boolean> {
    return this.guard(`index exists ${name}`, async () => {
      try {
        return await this.client.indices.exists({ index: name });
      } catch (err) {
        // HEAD answers a block on the index (`index.blocks.metadata`) with a bare 403: the GET's body names it.
        throw await whyRefused(err, () => this.client.indices.get({ index: name }));
      }
    });
  }

  bulk(operations: Record<string, unknown>[], options: BulkOptions = {}): Promise<BulkResult> {
    return this.guard("bulk", async () => {
      options.beforeSend?.();
      const body = await this.client.bulk({ operations, ...(options.refresh === undefined ? {} : { refresh: options.refresh }) }, options.beforeSend ? { maxRetries: 0 } : {});
      return toBulkResult(body as never);
    });
  }

  search<T>(request: SearchRequest): Promise<SearchResponse<T>> {
    return this.guard(`search ${request.index}`, async () => {
      return (await this.client.search({ index: request.index, ...request.body, ...searchParams(request) } as never)) as unknown as SearchResponse<T>;
    });
  }

  msearch<T>(requests: SearchRequest[]): Promise<(SearchResponse<T> | Error)[]> {
    return this.guard("msearch", async () => {
      const body = await this.client.msearch({ searches: msearchLines(requests) as never });
      return toMsearchResults<T>(body as never);
    });
  }

  mget<T>(index: string, ids: string[], sourceFields?: string[]): Promise<Map<string, T>> {
    return this.guard(`mget ${index}`, async () => {
      if (ids.length === 0) return new Map();
      const body = await this.client.mget<T>({ index, ids, ...(sourceFields ? { _source_includes: sourceFields } : {}) });
      return toSourceMap<T>(body.docs as never);
    });
  }

  get<T>(index: string, id: string): Promise<T | undefined> {
    return this.guard(`get ${index}/${id}`, async () => {
      const found = await orUndefinedIfMissing(() => this.client.get<T>({ index, id }));
      return found?._source;
    });
  }

  refresh(index: string): Promise<void> {
    return this.guard(`refresh ${index}`, async () => {
      await this.client.indices.refresh({ index });
    });
  }

  refreshIntervalMs(index: string): Promise<number> {
    return this.guard(`get settings ${index}`, async () => {
      const body = await this.client.indices.getSettings({ index, include_defaults: true, name: "index.refresh_interval" });
      return refreshIntervalFrom(body as never);
    });
  }

  getVersioned<T>(index: string, id: string): Promise<Versioned<T> | undefined> {
    return this.guard(`get ${index}/${id}`, async () => toVersioned<T>((await orUndefinedIfMissing(() => this.client.get<T>({ index, id }))) as never));
  }

  putDocument(index: string, id: string, source: Record<string, unknown>, options: PutOptions = {}): Promise<{ seqNo: number; primaryTerm: number }> {
    return this.guard(`put ${index}/${id}`, async () => {
      const body = await this.client.index({
        index,
        id,
        document: source,
        ...(options.create ? { op_type: "create" as const } : {}),
        ...(options.ifSeqNo === undefined ? {} : { if_seq_no: options.ifSeqNo, if_primary_term: options.ifPrimaryTerm! }),
        ...(options.refresh === undefined ? {} : { refresh: options.refresh }),
      });
      return { seqNo: body._seq_no!, primaryTerm: body._primary_term! };
    });
  }

  openPointInTime(index: string, keepAlive: string): Promise<string> {
    return this.guard(`open point in time ${index}`, async () => (await this.client.openPointInTime({ index, keep_alive: keepAlive })).id);
  }

  closePointInTime(id: string): Promise<void> {
    return this.guard("close point in time", async () => {
      await orUndefinedIfMissing(() => this.client.closePointInTime({ id }));
    });
  }

  searchPointInTime<T>(pitId: string, keepAlive: string, body: Record<string, unknown>): Promise<PointInTimePage<T>> {
    return this.guard("search point in time", async () => {
      // Elasticsearch adds `_shard_doc` as the tiebreaker of a sorted point-in-time search by itself.
      const response = (await this.client.search({ ...body, pit: { id: pitId, keep_alive: keepAlive } } as never)) as unknown as SearchResponse<T> & { pit_id?: string };
      return { ...response, pitId: response.pit_id ?? pitId };
    });
  }

  aliasIndices(alias: string): Promise<AliasedIndex[]> {
    return this.guard(`get alias ${alias}`, async () => {
      // Named as the index too, never `GET _alias/<alias>` alone: see toAliasedIndices (responses.ts).
      const body = await orUndefinedIfMissing(() => this.client.indices.getAlias({ index: alias, name: alias }));
      return body ? toAliasedIndices(body as never, alias) : [];
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
    return ((await orUndefinedIfMissing(() => this.client.indices.getAlias({ index }))) as never) ?? ({} as never);
  }

  rollover(alias: string): Promise<RolloverResult> {
    return this.guard(`rollover ${alias}`, async () => toRolloverResult((await this.client.indices.rollover({ alias })) as never));
  }

  resolveIndices(name: string): Promise<string[]> {
    return this.guard(`resolve ${name}`, async () => {
      const response = await orUndefinedIfMissing(() => this.client.transport.request({ method: "GET", path: `/_resolve/index/${encodeURIComponent(name)}` }));
      return response ? toResolvedIndices(response as never) : [];
    });
  }

  termDocFrequencies(indices: readonly string[], field: string, terms: readonly string[]): Promise<Map<string, number>> {
    if (indices.length === 0 || terms.length === 0) return Promise.resolve(new Map());
    return this.guard(`term statistics ${field}`, async () => {
      const response = await this.client.transport.request({ method: "POST", path: "/_mtermvectors", querystring: { filter_path: TERM_STATISTICS_FILTER }, body: termStatisticsBody(indices, field, terms) });
      return toDocFrequencies(response as never, field);
    });
  }

  seqNoCheckpoints(index: string): Promise<{ index: string; shard: string; checkpoint: number }[]> {
    return this.guard(`sequence number stats ${index}`, async () => toSeqNoCheckpoints((await this.client.indices.stats({ index, metric: "docs", level: "shards" })) as never));
  }

  runningBulks(names: readonly string[]): Promise<string[]> {
    return this.guard("list bulk tasks", async () => toBulkTaskIds((await this.client.tasks.list({ actions: BULK_ACTION, detailed: true })) as never, names));
  }

  refreshCounts(index: string): Promise<Map<string, number>> {
    return this.guard(`refresh stats ${index}`, async () => {
      return toRefreshCounts((await this.client.indices.stats({ index, metric: "refresh", level: "shards" })) as never);
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
