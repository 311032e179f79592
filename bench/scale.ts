/**
 * Scale benchmark (issue 9): `/v1/check` against a window of N stored
 * documents in a real OpenSearch, with the cost curve against N.
 *
 *   npx tsx bench/scale.ts                               # N = 100k, 300k, 1M; OpenSearch started here
 *   NEARDUP_SCALE_SIZES=1000000,10000000,50000000 npx tsx bench/scale.ts   # bigger machines
 *
 * Documents carry only the neardup fields (contract v3: simhash, segments,
 * LSH keys and scheme, sketch, verdict, timestamp) and, for the real ones,
 * their short text, so that 50M fit a disk:
 * - real: NEARDUP_SCALE_REAL texts from `chinese-poetry` (1-3 poems each,
 *   20-300 characters), fingerprinted by the service's own code;
 * - synthetic (the rest): each of the four segment values and each of the 16
 *   LSH band keys drawn from the key distribution measured on the real texts
 *   (Good-Turing: an unseen, random key with the probability of keys seen once,
 *   else the same slot of a random real document, skew included), with a real
 *   document's sketch. They are different documents (no near-duplicates).
 * Planted near-duplicates: NEARDUP_SCALE_CHECKS/2 checks are two-character
 * edits of real stored texts (recall: the check names that document, or an
 * identical stored copy, as `duplicate_of` or among its duplicate `matches`);
 * the other half are new combinations of real poems, which often contain a
 * stored poem, so "called duplicate" there is mostly a true overlap.
 * Per size and per LSH key budget (NEARDUP_SCALE_BUDGETS, default "0,200":
 * 0 is every band key alone, as before selective keys; 200 the default of
 * NEARDUP_LSH_KEY_BUDGET), on the same stored documents and the same checks:
 * check latency p50/p99 over HTTP (sequential), engine hits and re-ranked
 * candidates per lookup p50/p99/max, paired keys per lookup, planted recall,
 * lookups cut, bytes per document (after a force merge). Figures only; no
 * assertion.
 *
 * NEARDUP_SCALE_KEEP=1 keeps the index at the end, and a later run with the
 * same sizes on the same engine (NEARDUP_ENGINE_URL) reuses what is loaded
 * (and goes on loading where an interrupted run stopped).
 *
 * For sizes a disk holds only this way (50M on a 70 GB disk):
 * - NEARDUP_SCALE_LEAN=1 makes the index with the fields that lookups read
 *   from doc values alone (`neardup.sketch`, `neardup.lsh_list`) left out of
 *   `_source`. Lookups read the same values; a product index keeps them in
 *   `_source`, which an update or a reindex needs.
 * - NEARDUP_SCALE_MERGE=0 skips the force merge after loading (it rewrites the
 *   whole index and needs its size again in free disk): the checks then run
 *   on the segments the load left, as a live window has them.
 * - NEARDUP_SCALE_CODEC=best_compression stores `_source` with DEFLATE
 *   instead of LZ4 (smaller stored fields, slower fetches).
 * - NEARDUP_SCALE_SHORT=<chars> gives synthetic documents the sketch of a real
 *   text of at most that many characters (a short text: smaller doc values).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import type { Analysis } from "../src/core/fingerprinter.js";
import { connectEngine, installTemplates, type Engine } from "../src/engine/index.js";
import { startLocalOpenSearch } from "../src/engine/local/index.js";
import { createMetrics } from "../src/server/metrics.js";
import { listenApi } from "./api-server.js";
import { DedupService } from "../src/service/dedup-service.js";
import { neardupSource } from "../src/service/documents.js";
import { createDedupMetrics } from "../src/service/metrics.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createRng } from "./quality/rng.js";
import { loadPoems } from "./poems.js";

const SIZES = (process.env.NEARDUP_SCALE_SIZES ?? "100000,300000,1000000").split(",").map(Number);
const REAL = Number(process.env.NEARDUP_SCALE_REAL ?? 50_000);
const CHECKS = Number(process.env.NEARDUP_SCALE_CHECKS ?? 600);
const BATCH = 5000;
const BUDGETS = (process.env.NEARDUP_SCALE_BUDGETS ?? "0,200").split(",").map(Number);
const KEEP = process.env.NEARDUP_SCALE_KEEP === "1";
const T0 = Date.parse("2026-12-01T00:00:00Z");
const INDEX = "bench-scale";
const LEAN = process.env.NEARDUP_SCALE_LEAN === "1";
const MERGE = process.env.NEARDUP_SCALE_MERGE !== "0";
/** NEARDUP_SCALE_CODEC=<codec>: the index's stored-fields codec (`index.codec`, e.g. `best_compression`), set when the index is made. */
const CODEC = process.env.NEARDUP_SCALE_CODEC;
/** NEARDUP_SCALE_SHORT=<chars>: synthetic documents take the sketch of a real text of at most that many characters (smaller doc values). */
const SHORT = Number(process.env.NEARDUP_SCALE_SHORT ?? Infinity);

/** Real document i: 1-3 poems, cut to 300 characters. */
function realText(poems: string[], i: number): string {
  const rng = createRng(0x51ed ^ i);
  const k = 1 + rng.int(3);
  return Array.from(Array.from({ length: k }, () => poems[rng.int(poems.length)]).join("")).slice(0, 300).join("");
}

function nearDuplicate(text: string, seed: number): string {
  const rng = createRng(seed);
  const chars = Array.from(text);
  for (let e = 0; e < 2; e++) chars[rng.int(chars.length)] = "之";
  return chars.join("");
}

/** A force merge to one segment, as a task polled to its end (at 10M documents it outlasts an HTTP request's timeout). */
async function forceMerge(engineUrl: string): Promise<void> {
  const started = (await (await fetch(`${engineUrl}/${INDEX}/_forcemerge?max_num_segments=1&wait_for_completion=false`, { method: "POST" })).json()) as { task?: string };
  if (!started.task) return;
  for (;;) {
    await new Promise((r) => setTimeout(r, 5000));
    const task = (await (await fetch(`${engineUrl}/_tasks/${started.task}`)).json()) as { completed?: boolean };
    if (task.completed !== false) return;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}


/** Each block device's readahead (`/sys/block/<dev>/queue/read_ahead_kb`), loop, RAM and zram devices left out. */
function readaheads(): string {
  try {
    const devices = readdirSync("/sys/block").filter((d) => !/^(loop|ram|zram)/.test(d));
    const out = devices.map((d) => `${d} ${readFileSync(`/sys/block/${d}/queue/read_ahead_kb`, "utf8").trim()} KB`);
    return out.length > 0 ? out.join(", ") : "no block device found";
  } catch {
    return "unknown (no /sys/block)";
  }
}

async function main(): Promise<void> {
  console.log(`## Scale: /v1/check against N stored documents\n`);
  console.log(`Machine: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(" ")} at start (shared with other work).\n`);
  console.log(`Disk readahead on this machine: ${readaheads()} (at 8 MB a lookup at 50M read its hits' doc values 4-5x slower than at 128 KB: docs/operations.md, "Disk readahead").\n`);
  const poems = loadPoems();
  let engineUrl = process.env.NEARDUP_ENGINE_URL;
  let stop = async () => {};
  let dataDir: string | undefined;
  if (!engineUrl) {
    dataDir = mkdtempSync(join(tmpdir(), "neardup-scale-"));
    const node = await startLocalOpenSearch({ port: 0, dataDir, heap: process.env.NEARDUP_BENCH_HEAP ?? "2g" });
    engineUrl = node.url;
    stop = () => node.stop();
  }
  const engine: Engine = await connectEngine({ url: engineUrl, requestTimeoutMs: 300_000 });
  // Time waited for the engine's reads, summed per check (checks run one at a time): how much of a check is the engine's.
  let engineMs = 0;
  for (const method of ["search", "msearch", "mget", "termDocFrequencies"] as const) {
    const call = (engine[method] as (...args: unknown[]) => Promise<unknown>).bind(engine);
    (engine as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const t = performance.now();
      try {
        return await call(...args);
      } finally {
        engineMs += performance.now() - t;
      }
    };
  }
  console.log(`Engine: ${engine.info.kind} ${engine.info.version}. Real texts: ${REAL.toLocaleString("en")}; checks per size: ${CHECKS}.${LEAN ? " Lean _source (sketch and key list in doc values only)." : ""}${MERGE ? "" : " No force merge."}\n`);
  const put = (path: string, body: unknown) => fetch(`${engineUrl}${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  try {
    await installTemplates(engine);
    const count = async () => ((await (await fetch(`${engineUrl}/${INDEX}/_count`)).json()) as { count?: number }).count ?? 0;
    // An interrupted load left documents that no refresh has shown yet (the load runs with refresh off).
    if (KEEP) await fetch(`${engineUrl}/${INDEX}/_refresh`, { method: "POST" });
    const already = KEEP ? await count() : 0;
    if (already === 0) await engine.deleteIndex(INDEX);
    else {
      console.log(`Reusing ${already.toLocaleString("en")} documents already in ${INDEX}.\n`);
      await put(`/${INDEX}/_settings`, { "index.refresh_interval": null }); // the service refuses an index with refresh off; set off again below
    }
    const fingerprinter = await createFingerprinter();
    const metrics = createMetrics({ defaultMetrics: false });
    const dedupMetrics = createDedupMetrics(metrics.registry);
    let lookupHits: number[] = [];
    const observe = dedupMetrics.engineHits.observe.bind(dedupMetrics.engineHits);
    dedupMetrics.engineHits.observe = ((v: number) => {
      lookupHits.push(v);
      observe(v);
    }) as typeof dedupMetrics.engineHits.observe;
    let paired = 0;
    const countPaired = dedupMetrics.pairedKeys.inc.bind(dedupMetrics.pairedKeys);
    dedupMetrics.pairedKeys.inc = ((v?: number) => {
      paired += v ?? 1;
      countPaired(v);
    }) as typeof dedupMetrics.pairedKeys.inc;
    const serviceWith = (lshKeyBudget: number) => new DedupService(engine, fingerprinter, resolveDedupOptions({ index: INDEX, windowMs: 365 * 24 * 3600_000, lshKeyBudget }), dedupMetrics);
    if ((LEAN || CODEC) && already === 0) {
      await engine.createIndex(INDEX, { ...(CODEC ? { settings: { "index.codec": CODEC } } : {}), ...(LEAN ? { mappings: { _source: { excludes: ["neardup.sketch", "neardup.lsh_list"] } } } : {}) });
    }
    await serviceWith(0).ensureIndex();
    await put(`/${INDEX}/_settings`, { "index.number_of_replicas": 0, "index.refresh_interval": "-1" });

    // Real documents: analysed once, stored with their text.
    const real: { text: string; analysis: Analysis; source: Record<string, unknown> }[] = [];
    const byText = new Map<string, string[]>();
    for (let i = 0; i < REAL; i++) {
      const text = realText(poems, i);
      const analysis = fingerprinter.analyze(text);
      real.push({ text, analysis, source: neardupSource(analysis, { status: "original" }, T0 + i, `r${i}`) as unknown as Record<string, unknown> });
      const ids = byText.get(analysis.normalized) ?? [];
      ids.push(`r${i}`);
      byText.set(analysis.normalized, ids);
    }
    // Seeded by where the load starts: a run that goes on from an interrupted one draws new keys, not the first
    // run's again (each later document would have been a key-for-key twin of an earlier one).
    const rng = createRng(2026 ^ already);
    const sketchDonors = real.filter((r) => r.analysis.length <= SHORT);
    if (sketchDonors.length === 0) throw new Error(`no real text of at most NEARDUP_SCALE_SHORT=${SHORT} characters`);
    const pick = () => real[rng.int(REAL)]!.analysis;
    // Good-Turing: a new text's key in a slot is one never seen among the real
    // texts with probability (keys seen once) / (texts); then it is fresh and
    // random, else drawn from the real texts' keys in that slot. Without this,
    // every synthetic key would copy one of REAL texts' keys and collide far
    // more often than real keys do (N / REAL copies of each).
    const unseen = (slot: (a: Analysis) => string): number => {
      const counts = new Map<string, number>();
      for (const r of real) counts.set(slot(r.analysis), (counts.get(slot(r.analysis)) ?? 0) + 1);
      let once = 0;
      for (const c of counts.values()) if (c === 1) once++;
      return once / REAL;
    };
    const segUnseen = [0, 1, 2, 3].map((k) => unseen((a) => a.segments[k]!));
    const lshUnseen = Array.from({ length: 16 }, (_, b) => unseen((a) => a.lsh[b] ?? ""));
    console.log(`Unseen-key probability (Good-Turing) per segment: ${segUnseen.map((x) => x.toFixed(3)).join(" ")}; per LSH band, mean ${(lshUnseen.reduce((x, y) => x + y, 0) / 16).toFixed(3)}.\n`);
    const fresh32 = () => Math.floor(rng.next() * 2 ** 32).toString(16).padStart(8, "0");
    // A synthetic document's fields that come from its sketch donor, as JSON text made once per donor: each
    // document's NDJSON lines are that text and its own keys (building objects for the engine client to serialize
    // took the loader most of a core, beside the engine's two).
    const donorText = sketchDonors.map((d) => {
      const { simhash: _h, seg0: _0, seg1: _1, seg2: _2, seg3: _3, lsh: _l, lsh_list: _ll, id: _id, timestamp: _t, ...rest } = d.source as Record<string, unknown>;
      return `{"neardup":${JSON.stringify(rest).slice(0, -1)}`;
    });
    const syntheticLines = (i: number): string => {
      const segs = [0, 1, 2, 3].map((k) => (rng.next() < segUnseen[k]! ? Math.floor(rng.next() * 65536).toString(16).padStart(4, "0") : pick().segments[k]!));
      const lsh = Array.from({ length: 16 }, (_, b) => (rng.next() < lshUnseen[b]! ? `${b.toString(16).padStart(2, "0")}:${fresh32()}` : pick().lsh[b]!));
      const donor = donorText[rng.int(sketchDonors.length)]!;
      const own = `"simhash":"${segs.join("")}","seg0":"${segs[0]}","seg1":"${segs[1]}","seg2":"${segs[2]}","seg3":"${segs[3]}","lsh":${JSON.stringify(lsh)},"lsh_list":"${Buffer.from(lsh.join(" ")).toString("base64")}","id":"s${i}","timestamp":"${new Date(T0 + i).toISOString()}"`;
      return `{"index":{"_index":"${INDEX}","_id":"s${i}"}}\n${donor},${own}}}\n`;
    };
    /** A bulk of synthetic documents' NDJSON, sent as text; the answer filtered to its errors. */
    const bulkText = async (body: string): Promise<void> => {
      const res = await fetch(`${engineUrl}/_bulk?filter_path=errors,items.*.error`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
      const answer = (await res.json()) as { errors?: boolean; items?: unknown[] };
      if (res.status !== 200 || answer.errors) throw new Error(`bulk errors (HTTP ${res.status}): ${JSON.stringify(answer).slice(0, 500)}`);
    };

    const rows: string[] = [];
    let loaded = already;
    for (const n of SIZES) {
      const t = performance.now();
      const loadedBefore = loaded;
      // Two bulk requests in flight: the engine indexes one while the next is built.
      const inFlight = new Set<Promise<void>>();
      while (loaded < n) {
        const ops: Record<string, unknown>[] = [];
        let lines = "";
        for (let i = loaded; i < Math.min(n, loaded + BATCH); i++) {
          if (i < REAL) ops.push({ index: { _index: INDEX, _id: `r${i}` } }, { text: real[i]!.text, neardup: real[i]!.source });
          else lines += syntheticLines(i);
        }
        if (loaded % 500_000 < BATCH) console.log(`  loading ${(loaded + BATCH).toLocaleString("en")} (${loadavg()[0]!.toFixed(1)} load, ${new Date().toISOString().slice(11, 19)})`);
        const sent = Promise.all([
          ops.length > 0
            ? engine.bulk(ops).then((r) => {
                if (r.errors) throw new Error(`bulk errors: ${JSON.stringify(r.items.find((x) => x.error))}`);
              })
            : undefined,
          lines.length > 0 ? bulkText(lines) : undefined,
        ]);
        const p: Promise<void> = sent.then(() => {
          inFlight.delete(p);
        });
        inFlight.add(p);
        loaded = Math.min(n, loaded + BATCH);
        if (inFlight.size >= 2) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      const loadSeconds = (performance.now() - t) / 1000;
      const loadRate = loaded > loadedBefore ? (loaded - loadedBefore) / loadSeconds : NaN;
      await engine.refresh(INDEX);
      if (loaded > loadedBefore && MERGE) await forceMerge(engineUrl);
      const stats = (await (await fetch(`${engineUrl}/${INDEX}/_stats/store,docs`)).json()) as { _all: { primaries: { store: { size_in_bytes: number }; docs: { count: number } } } };

      for (const budget of BUDGETS) {
      const service = serviceWith(budget);
      paired = 0;
      const { url: api, server } = await listenApi(metrics, fingerprinter, service);
      const latencies: number[] = [];
      const engineWaits: number[] = [];
      const candidates: number[] = [];
      lookupHits = [];
      let planted = 0;
      let caught = 0;
      let falseAlarms = 0;
      let cut = 0;
      const checkRng = createRng(n);
      // NEARDUP_BENCH_PROFILE=<file>.cpuprofile: the checks alone profiled (bench/profile-summary.ts reads it).
      const session = process.env.NEARDUP_BENCH_PROFILE ? new Session() : undefined;
      if (session) {
        session.connect();
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: 200 });
        await session.post("Profiler.start");
      }
      for (let c = 0; c < CHECKS; c++) {
        const isPlanted = c % 2 === 0;
        const target = checkRng.int(Math.min(n, REAL));
        const text = isPlanted ? nearDuplicate(real[target]!.text, c) : realText(poems, 10_000_000 + c);
        const t1 = performance.now();
        const waited = engineMs;
        const res = await fetch(`${api}/v1/check`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text, time: T0 + n }) });
        const json = (await res.json()) as { status: string; duplicate_of: string | null; matches: { id: string }[]; candidates: number; candidates_cut: boolean };
        latencies.push(performance.now() - t1);
        engineWaits.push(engineMs - waited);
        if (res.status !== 200) throw new Error(`check failed: ${JSON.stringify(json)}`);
        candidates.push(json.candidates);
        if (json.candidates_cut) cut++;
        if (isPlanted) {
          planted++;
          const same = byText.get(real[target]!.analysis.normalized) ?? [];
          const named = [json.duplicate_of, ...json.matches.map((m) => m.id)];
          if (named.includes(`r${target}`) || named.some((id) => id !== null && same.includes(id))) caught++;
        } else if (json.status === "duplicate") falseAlarms++;
      }
      server.close();
      if (session) writeFileSync(process.env.NEARDUP_BENCH_PROFILE!, JSON.stringify((await session.post("Profiler.stop")).profile));
      latencies.sort((a, b) => a - b);
      engineWaits.sort((a, b) => a - b);
      candidates.sort((a, b) => a - b);
      lookupHits.sort((a, b) => a - b);
      const f = (x: number, d = 0) => x.toLocaleString("en", { maximumFractionDigits: d, minimumFractionDigits: d });
      rows.push(
        `| ${f(n)} | ${budget} | ${Number.isNaN(loadRate) ? "(loaded before)" : f(loadRate)} | ${f(percentile(latencies, 50), 1)} / ${f(percentile(latencies, 99), 1)} | ${f(percentile(engineWaits, 50), 1)} / ${f(percentile(engineWaits, 99), 1)} | ${percentile(lookupHits, 50)} / ${percentile(lookupHits, 99)} / ${lookupHits[lookupHits.length - 1]} | ${percentile(candidates, 50)} / ${percentile(candidates, 99)} / ${candidates[candidates.length - 1]} | ${f(caught / planted, 3)} (${caught}/${planted}) | ${falseAlarms}/${CHECKS - planted} | ${cut} | ${f(paired / CHECKS, 1)} | ${f(stats._all.primaries.store.size_in_bytes / stats._all.primaries.docs.count)} |`,
      );
      console.log(rows[rows.length - 1]);
      }
    }
    console.log("\n| N stored | key budget | load docs/s | check p50 / p99 ms | of it waiting for the engine, p50 / p99 ms | engine hits per lookup p50 / p99 / max | re-ranked candidates p50 / p99 / max | planted recall | new texts called duplicate | lookups cut | paired keys per check | bytes/doc |");
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const r of rows) console.log(r);
    console.log(`\nLoad average at end: ${loadavg().map((x) => x.toFixed(1)).join(" ")}.`);
  } finally {
    if (!KEEP) await engine.deleteIndex(INDEX).catch(() => undefined);
    await engine.close();
    await stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
