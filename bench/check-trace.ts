/**
 * Where a lookup's time goes, against a kept window (docs/benchmarks.md,
 * "Where a lookup's engine time goes at 1M documents"). The service runs in
 * this process on NEARDUP_ENGINE_URL over the index `bench-dedup` that
 * `NEARDUP_BENCH_KEEP=1 npx tsx bench/service.ts` keeps; every engine call
 * is timed (wall time and the engine's `took`).
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 N=600 npx tsx bench/check-trace.ts
 *       # N sequential checks through DedupService.check (half planted near-duplicates of
 *       # window documents, half new): p50 / p90 / p99 ms, the 8 slowest with their engine calls,
 *       # and per engine method the calls per check and their p50 / p99
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 N=600 PROFILE_SLOWEST=5 npx tsx bench/check-trace.ts
 *       # and then checks the 5 slowest texts again, 20 times each, under the CPU profiler:
 *       # .neardup/check-slowest.cpuprofile (read it with bench/profile-summary.ts)
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 INGEST=39000000 npx tsx bench/check-trace.ts
 *       # 8 bulks of 500 fresh documents (numbers from INGEST on): docs/s, and per engine
 *       # method the calls and their total wall time and `took`
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { connectEngine, type Engine } from "../src/engine/index.js";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { DedupService } from "../src/service/dedup-service.js";
import { parseDocInput } from "../src/service/input.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createRng } from "./quality/rng.js";
import { loadPoems } from "./poems.js";
import { makeDoc } from "./service.js";

const T0 = Date.parse("2026-12-01T00:00:00Z");
const engine = await connectEngine({ url: process.env.NEARDUP_ENGINE_URL!, requestTimeoutMs: 120_000 });
const wall: Record<string, number[]> = {};
const took: Record<string, number[]> = {};
let calls: string[] = [];
const timed = engine as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
for (const m of ["search", "msearch", "mget", "termDocFrequencies", "resolveIndices", "bulk"] as const satisfies readonly (keyof Engine)[]) {
  const call = timed[m]!.bind(engine);
  timed[m] = async (...a: unknown[]) => {
    const t = performance.now();
    const r = (await call(...a)) as { took?: number } | { took?: number }[];
    const ms = performance.now() - t;
    (wall[m] ??= []).push(ms);
    const tooks = (Array.isArray(r) ? r : [r]).flatMap((x) => (typeof x?.took === "number" ? [x.took] : []));
    (took[m] ??= []).push(...tooks);
    calls.push(`${m}:${ms.toFixed(1)}${tooks.length === 1 ? `/${tooks[0]}` : ""}`);
    return r;
  };
}
const service = new DedupService(engine, await createFingerprinter(), resolveDedupOptions({ index: process.env.NEARDUP_BENCH_INDEX ?? "bench-dedup", lshKeyBudget: 200 }));
await service.ensureIndex();
const poems = loadPoems();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]?.toFixed(2);
const sum = (xs: number[] = []) => xs.reduce((a, b) => a + b, 0).toFixed(0);

if (process.env.INGEST) {
  const from = Number(process.env.INGEST);
  const t0 = performance.now();
  for (let b = 0; b < 8; b++) {
    const docs = [];
    for (let i = from + b * 500; i < from + (b + 1) * 500; i++) docs.push(parseDocInput({ id: `d${i}`, text: makeDoc(poems, i), time: new Date(T0 + 1_500_000 + i - from).toISOString() }));
    await service.index(docs, "mark");
  }
  console.log("ingest docs/s", (4000 / ((performance.now() - t0) / 1000)).toFixed(0));
  for (const [m, v] of Object.entries(wall)) console.log(m, "calls", v.length, "wall ms total", sum(v), "took total", sum(took[m]));
} else {
  const N = Number(process.env.N ?? 200);
  const profiled = Number(process.env.PROFILE_SLOWEST ?? 0);
  if (!Number.isInteger(profiled) || profiled < 0) throw new Error(`PROFILE_SLOWEST must be a whole number of checks, got ${JSON.stringify(process.env.PROFILE_SLOWEST)}`);
  const rng = createRng(42);
  const latencies: number[] = [];
  const candidates: number[] = [];
  const slowest: [number, string, string][] = [];
  for (let c = 0; c < N; c++) {
    let text = makeDoc(poems, c % 2 === 0 ? 10_000 + rng.int(1_000_000) : 90_000_000 + c);
    if (c % 2 === 0) text = [...Array.from(text).slice(0, 3), "之", ...Array.from(text).slice(4)].join("") + "（转载）"; // a planted near-duplicate
    if (c === 1) {
      // The first check warms up.
      for (const k of Object.keys(wall)) wall[k] = [];
      for (const k of Object.keys(took)) took[k] = [];
    }
    calls = [];
    const t = performance.now();
    const r = await service.check(text, { time: T0 + 2_000_000 });
    const ms = performance.now() - t;
    latencies.push(ms);
    candidates.push(r.candidates);
    const rules = new Map<string, number>();
    for (const m of r.matches) rules.set(m.rule ?? "none", (rules.get(m.rule ?? "none") ?? 0) + 1);
    const matched = [...rules].map(([rule, n]) => `${n} ${rule}`).join(", ");
    slowest.push([ms, `${r.candidates} candidates (matches: ${matched || "none"}), ${text.length} chars: ${calls.join(" ")}`, text]);
  }
  console.log("check p50 / p90 / p99 ms", pct(latencies, 50), pct(latencies, 90), pct(latencies, 99));
  console.log("candidates per check mean / p99", (candidates.reduce((a, b) => a + b, 0) / N).toFixed(1), pct(candidates, 99));
  for (const [ms, d] of slowest.sort((a, b) => b[0] - a[0]).slice(0, 8)) console.log(ms.toFixed(1), d);
  for (const [m, v] of Object.entries(wall)) console.log(m, "calls per check", (v.length / N).toFixed(2), "wall p50", pct(v, 50), "p99", pct(v, 99), "took p50", pct(took[m] ?? [], 50), "p99", pct(took[m] ?? [], 99));
  if (profiled > 0) {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
    const t = performance.now();
    for (const [, , text] of slowest.slice(0, profiled)) for (let k = 0; k < 20; k++) await service.check(text, { time: T0 + 2_000_000 });
    const ms = performance.now() - t;
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(".neardup", { recursive: true });
    writeFileSync(".neardup/check-slowest.cpuprofile", JSON.stringify(profile));
    console.log(`the ${profiled} slowest checked 20 times each: ${(ms / (profiled * 20)).toFixed(1)} ms a check; profile in .neardup/check-slowest.cpuprofile`);
  }
}
await engine.close();
process.exit(0);
