/**
 * Service benchmark (issue 5): dedup at index time against a real engine.
 *
 *   npx tsx bench/service.ts                          # 100k documents, local OpenSearch started here
 *   NEARDUP_BENCH_DOCS=1000000 npx tsx bench/service.ts
 *   NEARDUP_BENCH_CLIENTS=4 NEARDUP_BENCH_WORKERS=2 npx tsx bench/service.ts   # 4 concurrent clients, analysis on 2 worker threads
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:9200 npx tsx bench/service.ts   # an engine you run
 *   NEARDUP_PIPELINE_CHUNK=1000 npx tsx bench/service.ts   # each bulk decided whole (default: the service's, 100 at a time)
 *   NEARDUP_BENCH_DOCS=1010000 NEARDUP_BENCH_INGEST=10000 NEARDUP_BENCH_KEEP=1 NEARDUP_BENCH_BYTES=0 NEARDUP_ENGINE_URL=... npx tsx bench/service.ts
 *       # 1M documents in the window; again with NEARDUP_BENCH_INGEST_FROM=20000000 (and other clients/workers) to reuse it
 *
 * Documents: real classical Chinese text (npm `chinese-poetry`, 全唐诗),
 * each document 2-8 poems drawn with a seeded generator (about 100-700
 * characters, so all three length buckets occur), generated on the fly.
 *
 * Measured in one run, on the same documents:
 *  1. the window: documents NEARDUP_BENCH_INGEST.. NEARDUP_BENCH_DOCS - 1
 *     loaded with their fingerprints into the dedup index (the preload rate),
 *     and as text into the raw index, so that both hold the same documents;
 *  2. raw `_bulk` of the first NEARDUP_BENCH_INGEST documents (text only, no
 *     dedup), fresh to both indices: the baseline rate;
 *  3. ingest of the same documents through `POST /v1/documents/_bulk` over
 *     HTTP (fingerprint, candidates, re-rank, write), with the window already
 *     stored: rate and ratio to 2. Both use NEARDUP_BENCH_CLIENTS clients;
 *  4. NEARDUP_BENCH_CHECKS sequential `POST /v1/check` requests over HTTP,
 *     half near-duplicates of indexed documents, half new: p50/p90/p99
 *     latency, candidates per check, how many near-duplicates were caught;
 *  5. index bytes per document with and without the neardup fields (after a
 *     force merge to one segment).
 * No assertion on time anywhere: figures go to docs/benchmarks.md.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cpuMark, cpuPerDoc } from "./cpu.js";
import { createAnalyzerPool } from "../src/workers/index.js";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { connectEngine, installTemplates, type Engine } from "../src/engine/index.js";
import { startLocalOpenSearch } from "../src/engine/local/index.js";
import { createMetrics } from "../src/server/metrics.js";
import { listenApi } from "./api-server.js";
import { DedupService } from "../src/service/dedup-service.js";
import { documentSource } from "../src/service/documents.js";
import { createDedupMetrics } from "../src/service/metrics.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { loadMirror } from "./mirror-load.js";
import { createRng } from "./quality/rng.js";
import { loadPoems } from "./poems.js";

const DOCS = Number(process.env.NEARDUP_BENCH_DOCS ?? 100_000);
const INGEST = Math.min(DOCS, Number(process.env.NEARDUP_BENCH_INGEST ?? 50_000));
/** Documents in the window before the timed runs: numbers INGEST .. DOCS - 1. */
const WINDOW = DOCS - INGEST;
/** Number of the first document the timed runs send (default 0); a later run on a kept window sends fresh ones (e.g. 20,000,000). */
const FROM = Number(process.env.NEARDUP_BENCH_INGEST_FROM ?? 0);
/** NEARDUP_BENCH_KEEP=1: reuse the window stored by an earlier run when the dedup index holds it. */
const KEEP = process.env.NEARDUP_BENCH_KEEP === "1";
/** NEARDUP_BENCH_WINDOW=<name>: the dedup index (default bench-dedup; the raw index is <name>-raw, default bench-raw), so that windows written by two versions can be kept side by side. */
const WINDOW_INDEX = process.env.NEARDUP_BENCH_WINDOW || undefined;
/** NEARDUP_BENCH_BYTES=0: skip the force merge and the bytes per document (minutes at 1M). */
const BYTES = process.env.NEARDUP_BENCH_BYTES !== "0";
const CHECKS = Number(process.env.NEARDUP_BENCH_CHECKS ?? 2000);
const BATCH = 500;
/** Concurrent API clients during ingest. */
const CLIENTS = Math.max(1, Number(process.env.NEARDUP_BENCH_CLIENTS ?? 1));
/** Analysis workers of the service (0: in the request thread, as before issue 10). */
const WORKERS = Math.max(0, Number(process.env.NEARDUP_BENCH_WORKERS ?? 0));
const T0 = Date.parse("2026-12-01T00:00:00Z");

/** Document i: 2-8 poems chosen by a generator seeded with i (the same text on every run). */
export function makeDoc(poems: string[], i: number): string {
  const rng = createRng(0x9e3779b1 ^ i);
  const k = 2 + rng.int(7);
  return Array.from({ length: k }, () => poems[rng.int(poems.length)]).join("\n");
}

/** A near-duplicate: a few characters substituted and a tag added, as a repost would. */
export function nearDuplicate(text: string, seed: number): string {
  const rng = createRng(seed);
  const chars = Array.from(text);
  for (let e = 0; e < 2; e++) chars[rng.int(chars.length)] = "之";
  return `${chars.join("")}（转载）`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function storeBytes(engineUrl: string, index: string): Promise<{ bytes: number; docs: number }> {
  await fetch(`${engineUrl}/${index}/_forcemerge?max_num_segments=1`, { method: "POST" });
  await fetch(`${engineUrl}/${index}/_refresh`, { method: "POST" });
  const body = (await (await fetch(`${engineUrl}/${index}/_stats/store,docs`)).json()) as {
    _all: { primaries: { store: { size_in_bytes: number }; docs: { count: number } } };
  };
  return { bytes: body._all.primaries.store.size_in_bytes, docs: body._all.primaries.docs.count };
}

async function postJson(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; retryAfter: string | null }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, retryAfter: res.headers.get("retry-after") };
}

export async function run(): Promise<void> {
  console.log(`## Service: dedup at index time (${DOCS.toLocaleString("en")} documents)\n`);
  console.log(`Machine: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(" ")} at start.\n`);
  const poems = loadPoems();
  let dataDir: string | undefined;
  let stop = async () => {};
  let engineUrl = process.env.NEARDUP_ENGINE_URL;
  if (!engineUrl) {
    dataDir = mkdtempSync(join(tmpdir(), "neardup-bench-"));
    const node = await startLocalOpenSearch({ port: 0, dataDir, heap: process.env.NEARDUP_BENCH_HEAP ?? "4g" });
    engineUrl = node.url;
    stop = () => node.stop();
  }
  const engine: Engine = await connectEngine({ url: engineUrl, requestTimeoutMs: 120_000 });
  console.log(`Engine: ${engine.info.kind} ${engine.info.version} at ${engineUrl}.\n`);
  try {
    await installTemplates(engine);
    const fingerprinter = await createFingerprinter();
    const rawIndex = WINDOW_INDEX ? `${WINDOW_INDEX}-raw` : "bench-raw";
    const dedupIndex = WINDOW_INDEX ?? "bench-dedup";
    const count = async (index: string) => ((await (await fetch(`${engineUrl}/${index}/_count`)).json()) as { count?: number }).count ?? 0;
    const reuse = KEEP && (await engine.indexExists(dedupIndex)) && (await count(dedupIndex)) >= WINDOW && (await engine.indexExists(rawIndex));
    if (!reuse) {
      await engine.deleteIndex(rawIndex);
      await engine.deleteIndex(dedupIndex);
      await engine.createIndex(rawIndex, { settings: { "index.number_of_replicas": 0 }, mappings: { properties: { text: { type: "text" } } } });
    }
    const metrics = createMetrics({ defaultMetrics: false });
    const analyzer = WORKERS > 0 ? await createAnalyzerPool(fingerprinter, { threads: WORKERS }) : undefined;
    const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: dedupIndex, lshKeyBudget: Number(process.env.NEARDUP_LSH_KEY_BUDGET ?? 200), mirrorDocs: Number(process.env.NEARDUP_MIRROR_DOCS ?? 0), ...(process.env.NEARDUP_PIPELINE_CHUNK ? { pipelineChunk: Number(process.env.NEARDUP_PIPELINE_CHUNK) } : {}) }), createDedupMetrics(metrics.registry), undefined, analyzer);
    await service.ensureIndex();
    await fetch(`${engineUrl}/${dedupIndex}/_settings`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ "index.number_of_replicas": 0 }) });

    // 1. The window: the documents after the first INGEST, with their fingerprints into the dedup index (two
    // bulks in flight), and as text into the raw index (not timed) so that both indices hold the same documents.
    let t = performance.now();
    let inFlight: Promise<unknown> | undefined;
    const loadTo = reuse ? INGEST : DOCS; // a kept window is not loaded again
    for (let start = INGEST; start < loadTo; start += 2000) {
      const ops: Record<string, unknown>[] = [];
      const rawOps: Record<string, unknown>[] = [];
      for (let i = start; i < Math.min(DOCS, start + 2000); i++) {
        const text = makeDoc(poems, i);
        const doc = { id: `d${i}`, idGiven: true, text, fields: undefined, time: T0 + i };
        ops.push({ index: { _index: dedupIndex, _id: doc.id } }, documentSource("text", doc, fingerprinter.analyze(text), { status: "original" }));
        rawOps.push({ index: { _index: rawIndex, _id: doc.id } }, { text });
      }
      const sent = Promise.all([engine.bulk(ops), engine.bulk(rawOps)]).then((rs) => {
        if (rs.some((r) => r.errors)) throw new Error("preload bulk had errors");
      });
      await inFlight;
      inFlight = sent;
      if (((start - INGEST) / 2000) % 50 === 49) process.stderr.write(`[bench] window: ${start + 2000 - INGEST} of ${DOCS - INGEST} documents\n`);
    }
    await inFlight;
    const preloadSeconds = (performance.now() - t) / 1000;
    await engine.refresh(dedupIndex);
    await engine.refresh(rawIndex);
    // NEARDUP_MIRROR_DOCS: the window mirror loaded before the timed runs (its load is reported, not timed with them).
    const mirrorLoad = await loadMirror(service);

    // CLIENTS concurrent clients, each sending its own batches in turn (batch k goes to client k % CLIENTS).
    const batches: number[] = [];
    for (let start = FROM; start < FROM + INGEST; start += BATCH) batches.push(start);

    // 2. Raw _bulk baseline: the first INGEST documents, text only, as many clients as the ingest below.
    let cpu0 = await cpuMark(engineUrl);
    t = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let k = c; k < batches.length; k += CLIENTS) {
          const ops: Record<string, unknown>[] = [];
          for (let i = batches[k]!; i < Math.min(FROM + INGEST, batches[k]! + BATCH); i++) ops.push({ index: { _index: rawIndex, _id: `d${i}` } }, { text: makeDoc(poems, i) });
          const r = await engine.bulk(ops);
          if (r.errors) throw new Error("raw bulk had errors");
        }
      }),
    );
    const rawSeconds = (performance.now() - t) / 1000;
    const rawRate = INGEST / rawSeconds;
    const rawCpu = cpuPerDoc(cpu0, await cpuMark(engineUrl), INGEST);

    // 3. Ingest of the same documents through the API over HTTP, the window already stored.
    const { url: api, server } = await listenApi(metrics, fingerprinter, service);
    let duplicatesAtIngest = 0;
    let retries = 0;
    cpu0 = await cpuMark(engineUrl);
    t = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let k = c; k < batches.length; k += CLIENTS) {
          const start = batches[k]!;
          const docs = [];
          for (let i = start; i < Math.min(FROM + INGEST, start + BATCH); i++) docs.push({ id: `d${i}`, text: makeDoc(poems, i), time: T0 + i });
          let res = await postJson(`${api}/v1/documents/_bulk`, docs);
          // A saturated sidecar answers 429/503 with Retry-After (backpressure): wait and send again, as shippers do.
          while (res.status === 429 || res.status === 503) {
            retries++;
            await new Promise((r) => setTimeout(r, 1000 * Number(res.retryAfter ?? 1)));
            res = await postJson(`${api}/v1/documents/_bulk`, docs);
          }
          if (res.status !== 200 || res.json.errors) throw new Error(`API bulk failed: ${JSON.stringify(res.json).slice(0, 300)}`);
          for (const item of res.json.items as { result: { status: string } }[]) if (item.result.status === "duplicate") duplicatesAtIngest++;
        }
      }),
    );
    const apiSeconds = (performance.now() - t) / 1000;
    const apiRate = INGEST / apiSeconds;
    const apiCpu = cpuPerDoc(cpu0, await cpuMark(engineUrl), INGEST);

    await engine.refresh(dedupIndex);

    // 4. Checks over HTTP, sequential: half near-duplicates of indexed documents, half new documents.
    const latencies: number[] = [];
    const candidates: number[] = [];
    let caught = 0;
    let falseAlarms = 0;
    const rng = createRng(42);
    for (let c = 0; c < CHECKS; c++) {
      const planted = c % 2 === 0;
      // Planted: a near-duplicate of a stored document (of the window when there is one); new: a number no run sends.
      const text = planted ? nearDuplicate(makeDoc(poems, WINDOW > 0 ? INGEST + rng.int(WINDOW) : FROM + rng.int(INGEST)), c) : makeDoc(poems, 90_000_000 + c);
      const t1 = performance.now();
      const res = await postJson(`${api}/v1/check`, { text, time: T0 + DOCS });
      latencies.push(performance.now() - t1);
      candidates.push(res.json.candidates as number);
      if (res.json.status === "duplicate") {
        if (planted) caught++;
        else falseAlarms++;
      }
    }
    server.close();
    await analyzer?.close();
    latencies.sort((a, b) => a - b);
    candidates.sort((a, b) => a - b);
    // With the window mirror, lookups read its key tables instead of the engine: its own hits are counted.
    const hitsMetric = service.mirror ? "neardup_mirror_hits_per_lookup" : "neardup_engine_hits_per_lookup";
    const hitsSum = (await metrics.registry.getSingleMetricAsString(hitsMetric)).match(/_sum (\d+(?:\.\d+)?)/)?.[1];
    const hitsCount = (await metrics.registry.getSingleMetricAsString(hitsMetric)).match(/_count (\d+)/)?.[1];

    // 5. Bytes per document.
    const raw = BYTES ? await storeBytes(engineUrl, rawIndex) : undefined;
    const ded = BYTES ? await storeBytes(engineUrl, dedupIndex) : undefined;

    const f = (x: number, d = 0) => x.toLocaleString("en", { maximumFractionDigits: d, minimumFractionDigits: d });
    console.log("| measure | value |");
    console.log("|---|---|");
    if (mirrorLoad) console.log(`| window mirror (NEARDUP_MIRROR_DOCS): documents loaded, load time, process memory after | ${f(mirrorLoad.docs)}, ${mirrorLoad.seconds.toFixed(1)} s, RSS ${mirrorLoad.rssMb} MB (heap ${mirrorLoad.heapMb} MB) |`);
    console.log(`| documents already in the window (and in the raw index) before the timed runs | ${f(WINDOW)}${reuse ? " (stored by an earlier run, NEARDUP_BENCH_KEEP)" : ""} |`);
    console.log(`| raw \`_bulk\`, text only (${f(INGEST)} new docs, batches of ${BATCH}, ${CLIENTS} client(s)) | ${f(rawRate)} docs/s |`);
    console.log(`| \`/v1/documents/_bulk\` with dedup (the same ${f(INGEST)} docs, batches of ${BATCH}, over HTTP, ${CLIENTS} client(s), ${WORKERS} analysis worker(s)) | ${f(apiRate)} docs/s |`);
    console.log(`| dedup ingest / raw ingest | ${f(apiRate / rawRate, 2)} |`);
    console.log(`| CPU ms per document, raw \`_bulk\`: bench process / engine | ${f(rawCpu.process, 3)} / ${f(rawCpu.engine, 3)} |`);
    console.log(`| CPU ms per document, dedup ingest: sidecar (with its client) / engine | ${f(apiCpu.process, 3)} / ${f(apiCpu.engine, 3)} |`);
    console.log(`| duplicates found during ingest | ${f(duplicatesAtIngest)} |`);
    console.log(`| bulk requests answered 429/503 (backpressure) and sent again after Retry-After | ${f(retries)} |`);
    if (!reuse) console.log(`| preload of the window's ${f(WINDOW)} docs (fingerprint + bulk into both indices, not via HTTP) | ${f(WINDOW / preloadSeconds)} docs/s |`);
    console.log(`| \`/v1/check\` latency at ${f(DOCS)} docs, p50 / p90 / p99 (${f(CHECKS)} sequential checks) | ${f(percentile(latencies, 50), 2)} / ${f(percentile(latencies, 90), 2)} / ${f(percentile(latencies, 99), 2)} ms |`);
    console.log(`| candidates re-ranked per check, p50 / p99 / max | ${percentile(candidates, 50)} / ${percentile(candidates, 99)} / ${candidates[candidates.length - 1]} |`);
    console.log(`| ${service.mirror ? "window mirror" : "engine segment"} hits per lookup, mean (before the Hamming filter) | ${hitsSum && hitsCount ? f(Number(hitsSum) / Number(hitsCount), 1) : "?"} |`);
    console.log(`| planted near-duplicates caught / new texts called duplicate | ${f(caught)} of ${f(Math.ceil(CHECKS / 2))} / ${f(falseAlarms)} of ${f(Math.floor(CHECKS / 2))} |`);
    if (raw && ded) console.log(`| index bytes per document, without / with neardup fields | ${f(raw.bytes / raw.docs)} / ${f(ded.bytes / ded.docs)} (+${f((ded.bytes / ded.docs / (raw.bytes / raw.docs) - 1) * 100, 1)}%) |`);
    console.log(`\nLoad average at end: ${loadavg().map((x) => x.toFixed(1)).join(" ")}.`);
  } finally {
    await engine.close();
    await stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await run();
