/**
 * `npm run engine`: a real OpenSearch node in the foreground for development.
 * Env: NEARDUP_LOCAL_PORT (default 9200), NEARDUP_LOCAL_DATA (default .neardup/opensearch-data),
 * NEARDUP_LOCAL_HEAP (default 1g), NEARDUP_LOCAL_ENGINE (opensearch | elasticsearch, default opensearch),
 * JAVA_HOME (java from it when set). Ctrl-C or SIGTERM stops the node cleanly.
 */
import { join } from "node:path";
import { isNeardupError } from "../../core/errors.js";
import { startLocalElasticsearch } from "./local-elasticsearch.js";
import { startLocalOpenSearch } from "./local-opensearch.js";

async function main(): Promise<void> {
  const env = process.env;
  const engine = (env.NEARDUP_LOCAL_ENGINE ?? "opensearch").toLowerCase();
  if (engine !== "opensearch" && engine !== "elasticsearch") {
    throw new Error(`NEARDUP_LOCAL_ENGINE must be opensearch or elasticsearch, got ${engine}`);
  }
  const port = Number(env.NEARDUP_LOCAL_PORT ?? "9200");
  const dataDir = env.NEARDUP_LOCAL_DATA ?? join(".neardup", `${engine}-data`);
  const start = engine === "opensearch" ? startLocalOpenSearch : startLocalElasticsearch;
  const t0 = Date.now();
  const node = await start({
    port,
    dataDir,
    heap: env.NEARDUP_LOCAL_HEAP ?? "1g",
    java: env.JAVA_HOME ? join(env.JAVA_HOME, "bin", "java") : "java",
    log: (line) => process.stderr.write(line + "\n"),
  });
  process.stderr.write(`[neardup] ${engine} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  process.stdout.write(`${node.url}\n`);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[neardup] ${signal}: stopping ${engine}...\n`);
    void node.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  node.process.once("exit", (code, signal) => {
    if (!stopping) {
      process.stderr.write(`[neardup] ${engine} exited unexpectedly (code ${code}, signal ${signal})\n`);
      process.exit(1);
    }
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`[neardup] ${isNeardupError(err) ? `${err.code}: ${err.message}` : String(err)}\n`);
  process.exit(1);
});
