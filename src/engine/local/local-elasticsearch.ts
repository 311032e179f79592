import { startLocalEngine, type EngineSpec, type LocalEngine, type LocalEngineOptions } from "./launcher.js";

export const ELASTICSEARCH_SPEC: EngineSpec = {
  name: "Elasticsearch",
  tool: "local-elasticsearch",
  mainClass: "neardup.local.LocalElasticsearch",
  prefix: "ELASTICSEARCH",
  dataName: "elasticsearch-data",
  jvmArgs: [],
};

/**
 * Starts a real single-node Elasticsearch 8.19 from tools/local-elasticsearch (Maven Central jars).
 * Core server plus transport-netty4 only: no painless, no analysis-common extras, no x-pack,
 * and `GET /` answers 405 (the rest-root module is not published). See docs/engines.md.
 */
export function startLocalElasticsearch(options: LocalEngineOptions = {}): Promise<LocalEngine> {
  return startLocalEngine(ELASTICSEARCH_SPEC, options);
}
