/**
 * `_bulk` proxy and backfill benchmark (issue 12), against a real engine you run:
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:9200 npx tsx bench/proxy.ts
 *   NEARDUP_BENCH_DOCS=100000 NEARDUP_BENCH_PROXY_DOCS=20000 NEARDUP_ENGINE_URL=... npx tsx bench/proxy.ts   # backfill of 100k
 *
 * Documents: generated short log-like texts, about 30% near-duplicates
 * (test/helpers/short-texts.ts), NEARDUP_BENCH_DOCS of them (default 20,000),
 * sent as NDJSON `_bulk` requests of NEARDUP_BENCH_BULK documents (default 1,000),
 * one request at a time, like a single shipper worker. Measured in one run:
 *  1. direct `_bulk` to the engine (the baseline);
 *  2. the same documents through DedupService.index in this process, in
 *     batches of the same size (no proxy): what the proxy is built on;
 *  3. the same documents through the proxy (parse, fingerprint, candidates,
 *     verdict, write as sent plus the neardup fields): rate, ratio to 1. and to 2.;
 *  4. `neardup backfill` of the index written in 1. plus the documents past
 *     NEARDUP_BENCH_PROXY_DOCS (read in time order, verdicts, bulk partial
 *     updates): docs/s and ratio of rates to 1.
 * NEARDUP_BENCH_WORKERS (default 1): analysis worker threads for 2. and 3. alike
 * (NEARDUP_WORKERS; the proxy shares the sidecar's pool).
 * With several URLs in NEARDUP_ENGINE_URL each engine is measured in turn.
 * bench/proxy-profile.ts runs 3. alone, for `node --cpu-prof`.
 * No assertion on time: the figures go to docs/benchmarks.md and docs/proxy.md.
 */
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { runBackfill } from "../src/cli/backfill.js";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { connectEngine, installTemplates } from "../src/engine/index.js";
import { parseIndexRules, startProxy } from "../src/proxy/index.js";
import { DedupService } from "../src/service/dedup-service.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createAnalyzer } from "../src/workers/index.js";
import { shortTexts, type ShortDoc } from "../test/helpers/short-texts.js";

const DOCS = Number(process.env.NEARDUP_BENCH_DOCS ?? 20_000);
const BULK = Number(process.env.NEARDUP_BENCH_BULK ?? 1000);
/** Documents sent both ways (direct and through the proxy); the rest only go to the index backfilled. */
const PROXY_DOCS = Math.min(DOCS, Number(process.env.NEARDUP_BENCH_PROXY_DOCS ?? DOCS));
const WORKERS = Number(process.env.NEARDUP_BENCH_WORKERS ?? 1);

async function sendAll(url: string, index: string, docs: ShortDoc[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < docs.length; i += BULK) {
    const body = docs
      .slice(i, i + BULK)
      .map((d) => `${JSON.stringify({ index: { _index: index, _id: d.id } })}\n${JSON.stringify({ message: d.message, "@timestamp": new Date(d.time).toISOString() })}\n`)
      .join("");
    const res = await fetch(`${url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    const json = (await res.json()) as { errors?: boolean; items?: Record<string, { error?: unknown }>[] };
    if (res.status !== 200 || json.errors) throw new Error(`bulk to ${url} failed: HTTP ${res.status} ${JSON.stringify(json.items?.find((it) => Object.values(it)[0]!.error) ?? json).slice(0, 300)}`);
  }
  return (performance.now() - started) / 1000;
}

const rate = (n: number, s: number) => Math.round(n / s).toLocaleString("en-US");

async function benchEngine(url: string, docs: ShortDoc[]): Promise<string[]> {
  const engine = await connectEngine({ url });
  await installTemplates(engine);
  const fingerprinter = await createFingerprinter();
  const analyzer = WORKERS > 1 ? await createAnalyzer(fingerprinter, WORKERS) : undefined;
  const stamp = Date.now().toString(36);
  const direct = `neardup-bench-direct-${stamp}`;
  const viaProxy = `neardup-bench-proxy-${stamp}`;
  const viaService = `neardup-bench-service-${stamp}`;
  const mappings = { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } };
  const settings = { number_of_shards: 1, number_of_replicas: 0 };
  await engine.createIndex(direct, { mappings, settings });
  await engine.createIndex(viaProxy, { mappings, settings });
  const proxy = await startProxy({
    host: "127.0.0.1",
    port: 0,
    connection: { url },
    rules: parseIndexRules(`${viaProxy}:message`),
    dedup: resolveDedupOptions({}),
    engine: () => engine,
    fingerprinter: async () => fingerprinter,
    analyzer: () => analyzer,
  });
  try {
    const both = docs.slice(0, PROXY_DOCS);
    const directS = await sendAll(url, direct, both);
    const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: viaService, textField: "message" }), undefined, undefined, analyzer);
    await service.ensureIndex();
    const serviceStart = performance.now();
    for (let i = 0; i < both.length; i += BULK) {
      await service.index(
        both.slice(i, i + BULK).map((d) => ({ id: d.id, idGiven: true, text: d.message, fields: undefined, time: d.time })),
        "mark",
      );
    }
    const serviceS = (performance.now() - serviceStart) / 1000;
    const proxyS = await sendAll(proxy.url, viaProxy, both);
    if (docs.length > both.length) await sendAll(url, direct, docs.slice(both.length));
    await engine.refresh(viaProxy);
    const marked = await engine.search({ index: viaProxy, body: { size: 0, track_total_hits: true, query: { term: { "neardup.status": "duplicate" } } } });
    const duplicates = typeof marked.hits.total === "number" ? marked.hits.total : marked.hits.total.value;
    await engine.refresh(direct);
    const backfillStart = performance.now();
    const result = await runBackfill(engine, fingerprinter, { index: direct, textField: "message", timeField: "@timestamp", batchSize: 1000, checkpoint: undefined, dryRun: false }, {}, { report: () => undefined });
    const backfillS = (performance.now() - backfillStart) / 1000;
    return [
      `| ${engine.info.kind} ${engine.info.version} | direct \`_bulk\` (baseline) | ${both.length.toLocaleString("en-US")} | ${directS.toFixed(1)} | ${rate(both.length, directS)} | 1.00 | |`,
      `| | \`DedupService.index\` in process (mark) | ${both.length.toLocaleString("en-US")} | ${serviceS.toFixed(1)} | ${rate(both.length, serviceS)} | ${(directS / serviceS).toFixed(2)} | |`,
      `| | through the proxy (dedup, mark) | ${both.length.toLocaleString("en-US")} | ${proxyS.toFixed(1)} | ${rate(both.length, proxyS)} | ${(directS / proxyS).toFixed(2)} (${(serviceS / proxyS).toFixed(2)} of the service's rate) | ${duplicates.toLocaleString("en-US")} marked |`,
      `| | \`neardup backfill\` of the direct index | ${result.written.toLocaleString("en-US")} | ${backfillS.toFixed(1)} | ${rate(result.written, backfillS)} | ${(result.written / backfillS / (both.length / directS)).toFixed(2)} | ${result.summary.duplicates.toLocaleString("en-US")} marked |`,
    ];
  } finally {
    await proxy.close();
    await analyzer?.close();
    await engine.deleteIndex(direct);
    await engine.deleteIndex(viaProxy);
    await engine.deleteIndex(viaService);
    await engine.close();
  }
}

export async function run(): Promise<void> {
  const urls = (process.env.NEARDUP_ENGINE_URL ?? "").split(",").map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) throw new Error("bench/proxy.ts needs NEARDUP_ENGINE_URL (an engine you run; comma-separated for several)");
  const docs = shortTexts(DOCS);
  console.log(`## _bulk proxy and backfill\n`);
  console.log(`${DOCS.toLocaleString("en-US")} short texts (~30% near-duplicates), bulks of ${BULK}, one request at a time; analysis workers: ${WORKERS}; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)} at start.\n`);
  console.log("| engine | path | docs | seconds | docs/s | ratio to direct | verdicts |");
  console.log("|---|---|---:|---:|---:|---:|---|");
  for (const url of urls) for (const row of await benchEngine(url, docs)) console.log(row);
  console.log(`\nload ${loadavg()[0]!.toFixed(1)} at end.`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await run();
