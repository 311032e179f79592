/**
 * Finds or starts the real engines the integration tests need. In order:
 *  1. NEARDUP_ENGINE_URL (comma-separated for several engines);
 *  2. testcontainers, when a Docker runtime answers (OpenSearch and Elasticsearch);
 *  3. tools/local-opensearch (and tools/local-elasticsearch when it builds), when Java and Maven exist.
 * If none works it throws, naming all three ways: integration tests are never silently skipped.
 * The engines used are written to .neardup/test-engines.json for .ci/run to report.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { detectEngine } from "../../src/engine/index.js";
import { startLocalElasticsearch, startLocalOpenSearch, type LocalEngine, type LocalEngineOptions } from "../../src/engine/local/index.js";
import type { EngineTarget } from "../helpers/engine-targets.js";

type Stop = () => Promise<void>;

async function fromEnv(urls: string): Promise<EngineTarget[]> {
  const targets: EngineTarget[] = [];
  for (const raw of urls.split(",").map((u) => u.trim()).filter(Boolean)) {
    const url = new URL(raw);
    const username = decodeURIComponent(url.username) || process.env.NEARDUP_ENGINE_USERNAME || undefined;
    const password = decodeURIComponent(url.password) || process.env.NEARDUP_ENGINE_PASSWORD || undefined;
    url.username = "";
    url.password = "";
    const clean = url.toString().replace(/\/$/, "");
    const info = await detectEngine({ url: clean, username, password });
    targets.push({ kind: info.kind, version: info.version, url: clean, username, password, source: "env" });
  }
  return targets;
}

async function dockerAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function fromTestcontainers(stops: Stop[]): Promise<EngineTarget[]> {
  const { OpenSearchContainer } = await import("@testcontainers/opensearch");
  const { ElasticsearchContainer } = await import("@testcontainers/elasticsearch");
  const os = await new OpenSearchContainer("opensearchproject/opensearch:2.19.3").withSecurityEnabled(false).start();
  stops.push(async () => void (await os.stop()));
  const es = await new ElasticsearchContainer("docker.elastic.co/elasticsearch/elasticsearch:8.19.2")
    .withEnvironment({ "xpack.security.enabled": "false" })
    .start();
  stops.push(async () => void (await es.stop()));
  const targets: EngineTarget[] = [];
  for (const url of [os.getHttpUrl(), `http://${es.getHost()}:${es.getPort()}`]) {
    const info = await detectEngine({ url });
    targets.push({ kind: info.kind, version: info.version, url, source: "testcontainers" });
  }
  return targets;
}

async function startLocal(name: string, start: (o: LocalEngineOptions) => Promise<LocalEngine>, stops: Stop[]): Promise<EngineTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), `neardup-it-${name}-`));
  const node = await start({ port: 0, dataDir, heap: "768m" });
  stops.push(async () => {
    await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const info = await detectEngine({ url: node.url });
  return { kind: info.kind, version: info.version, url: node.url, source: "local-maven" };
}

/**
 * OpenSearch from tools/local-opensearch is required; Elasticsearch from
 * tools/local-elasticsearch (core only, see docs/engines.md) is added when it
 * starts, and its failure is reported, not hidden. NEARDUP_TEST_ENGINES=opensearch
 * limits the run to OpenSearch.
 */
async function fromLocalMaven(stops: Stop[], tried: string[]): Promise<EngineTarget[]> {
  const wanted = (process.env.NEARDUP_TEST_ENGINES ?? "opensearch,elasticsearch").split(",").map((s) => s.trim());
  const [os, es] = await Promise.allSettled([
    startLocal("opensearch", startLocalOpenSearch, stops),
    wanted.includes("elasticsearch") ? startLocal("elasticsearch", startLocalElasticsearch, stops) : Promise.reject(new Error("not requested")),
  ]);
  if (os.status === "rejected") throw os.reason;
  const targets = [os.value];
  if (es.status === "fulfilled") targets.push(es.value);
  else if (wanted.includes("elasticsearch")) {
    tried.push(`tools/local-elasticsearch did not start: ${(es.reason as Error).message}`);
    console.warn(`[neardup] local Elasticsearch did not start; running against OpenSearch only: ${(es.reason as Error).message}`);
  }
  return targets;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: Stop[] = [];
  const tried: string[] = [];
  let engines: EngineTarget[] = [];
  const envUrls = process.env.NEARDUP_ENGINE_URL;
  if (envUrls) {
    engines = await fromEnv(envUrls);
  } else if (await dockerAvailable()) {
    engines = await fromTestcontainers(stops);
  } else {
    tried.push("NEARDUP_ENGINE_URL is not set", "no Docker runtime answered (testcontainers)");
    try {
      engines = await fromLocalMaven(stops, tried);
    } catch (err) {
      tried.push(`tools/local-opensearch failed: ${(err as Error).message}`);
    }
  }
  if (engines.length === 0) {
    throw new Error(
      "integration tests need a real engine and none could be had. Tried, in order:\n  - " +
        tried.join("\n  - ") +
        "\nFix one: set NEARDUP_ENGINE_URL=http://host:9200, start a Docker runtime, or install Java 17+ and Maven for tools/local-opensearch.",
    );
  }
  mkdirSync(".neardup", { recursive: true });
  writeFileSync(
    ".neardup/test-engines.json",
    JSON.stringify(engines.map(({ kind, version, url, source }) => ({ kind, version, url, source })), null, 2),
  );
  console.log(`[neardup] integration engines: ${engines.map((e) => `${e.kind} ${e.version} (${e.source}) at ${e.url}`).join("; ")}`);
  project.provide("engines", engines);
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
