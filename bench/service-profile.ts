/**
 * The `POST /v1/documents/_bulk` path alone, for profiling (`node --cpu-prof`):
 * the service and its HTTP API in this process over NEARDUP_ENGINE_URL, a fresh
 * index, NEARDUP_BENCH_DOCS documents of bench/service.ts (default 10,000) sent
 * in bulks of 500 by NEARDUP_BENCH_CLIENTS clients (default 1), analysis on
 * NEARDUP_BENCH_WORKERS worker threads (default 0: in the request thread),
 * each bulk decided in chunks of NEARDUP_PIPELINE_CHUNK (the service's default).
 * Prints docs/s and CPU ms per document (this process, the engine).
 *
 * With NEARDUP_BENCH_PROFILE=<file>.cpuprofile, the ingest alone (not the
 * start-up) is profiled through node:inspector, sampling every 200 µs; with
 * NEARDUP_BENCH_HEAP_PROFILE=<file>.heapprofile, its allocations are sampled:
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19300 NEARDUP_BENCH_PROFILE=.neardup/ingest.cpuprofile npx tsx bench/service-profile.ts
 *   npx tsx bench/profile-summary.ts .neardup/ingest.cpuprofile
 *
 * With NEARDUP_BENCH_INDEX=<name>, the index is kept between runs (created
 * when missing), and NEARDUP_BENCH_FIRST=<n> starts at document n: a first run
 * loads the window, later runs send new documents against it.
 *
 * With NEARDUP_BENCH_DUMP=<file>, the API's answers (items, in order) and
 * then every stored source (by id) are written to the file, one JSON a line:
 * two versions of the code with one client must write the same file.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { cpuMark, cpuPerDoc } from "./cpu.js";
import { makeDoc, nearDuplicate } from "./service.js";
import { loadPoems } from "./poems.js";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { connectEngine, installTemplates } from "../src/engine/index.js";
import { createMetrics } from "../src/server/metrics.js";
import { listenApi } from "./api-server.js";
import { DedupService } from "../src/service/dedup-service.js";
import { createDedupMetrics } from "../src/service/metrics.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createAnalyzerPool } from "../src/workers/index.js";
import { loadMirror } from "./mirror-load.js";

const DOCS = Number(process.env.NEARDUP_BENCH_DOCS ?? 10_000);
const CLIENTS = Math.max(1, Number(process.env.NEARDUP_BENCH_CLIENTS ?? 1));
const WORKERS = Math.max(0, Number(process.env.NEARDUP_BENCH_WORKERS ?? 0));
/**
 * NEARDUP_BENCH_DUP_SHARE (0..1, default 0): that share of the documents are
 * near-duplicates (a few characters changed, a tag added) of one of the run's
 * first 20 documents, as a burst of reposts makes: clusters of about
 * DOCS x share / 20 copies.
 */
const DUP_SHARE = Number(process.env.NEARDUP_BENCH_DUP_SHARE ?? 0);
if (!(DUP_SHARE >= 0 && DUP_SHARE <= 1)) throw new Error(`NEARDUP_BENCH_DUP_SHARE must be a number from 0 to 1, got ${JSON.stringify(process.env.NEARDUP_BENCH_DUP_SHARE)}`);
const BATCH = 500;
const T0 = Date.parse("2026-12-01T00:00:00Z");
const url = (process.env.NEARDUP_ENGINE_URL ?? "").trim();
if (!url) throw new Error("bench/service-profile.ts needs NEARDUP_ENGINE_URL");

const poems = loadPoems();
const engine = await connectEngine({ url, requestTimeoutMs: 120_000 });
await installTemplates(engine);
const fingerprinter = await createFingerprinter();
// NEARDUP_BENCH_INDEX: an index kept across runs (the documents already in the window), else a fresh one per run.
const kept = process.env.NEARDUP_BENCH_INDEX;
const index = kept ?? `bench-profile-${process.pid}`; // runs side by side do not share an index
/** Number of the first document sent (NEARDUP_BENCH_FIRST): runs on a kept index send new documents. */
const FIRST = Number(process.env.NEARDUP_BENCH_FIRST ?? 0);
if (!kept) await engine.deleteIndex(index);
const metrics = createMetrics({ defaultMetrics: false });
const analyzer = WORKERS > 0 ? await createAnalyzerPool(fingerprinter, { threads: WORKERS }) : undefined;
// NEARDUP_PIPELINE_CHUNK: documents a bulk decides at a time (the service's default unless set; 500 or more: each bulk whole).
const chunk = process.env.NEARDUP_PIPELINE_CHUNK ? { pipelineChunk: Number(process.env.NEARDUP_PIPELINE_CHUNK) } : {};
const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index, ...chunk, mirrorDocs: Number(process.env.NEARDUP_MIRROR_DOCS ?? 0) }), createDedupMetrics(metrics.registry), undefined, analyzer);
await service.ensureIndex();
const mirrorLoad = await loadMirror(service);
if (mirrorLoad) console.log(`window mirror: ${mirrorLoad.docs} documents in ${mirrorLoad.seconds.toFixed(1)} s, RSS ${mirrorLoad.rssMb} MB, heap ${mirrorLoad.heapMb} MB`);
await fetch(`${url}/${index}/_settings`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ "index.number_of_replicas": 0, ...JSON.parse(process.env.NEARDUP_BENCH_INDEX_SETTINGS ?? "{}") }) });
const { url: api, server } = await listenApi(metrics, fingerprinter, service);
const bodies: string[] = [];
const textOf = (i: number): string => {
  const pick = ((i * 2654435761) >>> 0) / 2 ** 32;
  if (i - FIRST < 20 || pick >= DUP_SHARE) return makeDoc(poems, i);
  return nearDuplicate(makeDoc(poems, FIRST + (i % 20)), i);
};
for (let start = FIRST; start < FIRST + DOCS; start += BATCH) {
  const docs = [];
  for (let i = start; i < Math.min(FIRST + DOCS, start + BATCH); i++) docs.push({ id: `d${i}`, text: textOf(i), time: T0 + i });
  bodies.push(JSON.stringify(docs));
}
const profileFile = process.env.NEARDUP_BENCH_PROFILE;
const heapFile = process.env.NEARDUP_BENCH_HEAP_PROFILE;
const session = profileFile || heapFile ? new Session() : undefined;
if (session) session.connect();
if (session && profileFile) {
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
}
if (session && heapFile) {
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
try {
  const cpu0 = await cpuMark(url);
  const started = performance.now();
  let duplicates = 0;
  const answers: unknown[][] = new Array(bodies.length);
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let k = c; k < bodies.length; k += CLIENTS) {
        const res = await fetch(`${api}/v1/documents/_bulk`, { method: "POST", headers: { "content-type": "application/json" }, body: bodies[k] });
        const json = (await res.json()) as { errors?: boolean; items: { result?: { status: string } }[] };
        if (res.status !== 200 || json.errors) throw new Error(`bulk failed: HTTP ${res.status}`);
        answers[k] = json.items;
        for (const item of json.items) if (item.result?.status === "duplicate") duplicates++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (session && profileFile) writeFileSync(profileFile, JSON.stringify((await session.post("Profiler.stop")).profile));
  if (session && heapFile) writeFileSync(heapFile, JSON.stringify((await session.post("HeapProfiler.stopSampling")).profile));
  session?.disconnect();
  const cpu = cpuPerDoc(cpu0, await cpuMark(url), DOCS);
  console.log(`${DOCS} docs in ${seconds.toFixed(1)} s: ${Math.round(DOCS / seconds)} docs/s, ${duplicates} duplicates; CPU ms/doc sidecar ${cpu.process.toFixed(3)}, engine ${cpu.engine.toFixed(3)}`);
  const dump = process.env.NEARDUP_BENCH_DUMP;
  if (dump) {
    await engine.refresh(index);
    const stored = await engine.search<unknown>({ index, body: { size: DOCS, sort: [{ "neardup.timestamp": "asc" }], query: { match_all: {} } } });
    const lines = [...answers.flat().map((a) => JSON.stringify(a)), ...stored.hits.hits.map((h) => JSON.stringify({ id: h._id, source: h._source }))];
    writeFileSync(dump, lines.join("\n") + "\n");
    console.log(`${lines.length} lines written to ${dump}`);
  }
} finally {
  server.close();
  await analyzer?.close();
  if (!kept) await engine.deleteIndex(index);
  await engine.close();
}
