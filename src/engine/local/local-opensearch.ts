import { startLocalEngine, type EngineSpec, type LocalEngine, type LocalEngineOptions } from "./launcher.js";

export const OPENSEARCH_SPEC: EngineSpec = {
  name: "OpenSearch",
  tool: "local-opensearch",
  mainClass: "neardup.local.LocalOpenSearch",
  prefix: "OPENSEARCH",
  dataName: "opensearch-data",
  // OpenSearch 2.x's own jvm.options uses these locale providers.
  jvmArgs: ["-Djava.locale.providers=SPI,CLDR"],
};

/**
 * Starts a real single-node OpenSearch 2.19 from tools/local-opensearch (Maven Central jars), building
 * it first when needed. Resolves once HTTP answers and the cluster is at least yellow.
 */
export function startLocalOpenSearch(options: LocalEngineOptions = {}): Promise<LocalEngine> {
  return startLocalEngine(OPENSEARCH_SPEC, options);
}
