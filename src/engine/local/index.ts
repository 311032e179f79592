export type { LocalEngine, LocalEngineOptions, EngineSpec } from "./launcher.js";
export { startLocalEngine, checkTools, repoRoot } from "./launcher.js";
export { startLocalOpenSearch, OPENSEARCH_SPEC } from "./local-opensearch.js";
export { startLocalElasticsearch, ELASTICSEARCH_SPEC } from "./local-elasticsearch.js";
export { parseLauncherLine, buildJavaArgs, staleReason, type LauncherStatus } from "./protocol.js";
