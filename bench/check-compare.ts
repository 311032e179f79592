/**
 * `/v1/check` latency of this checkout's service against another checkout's
 * (e.g. main before a change), on the same stored window, in one process:
 * each check text is checked by both services in turn (order alternating),
 * and the service call is timed (analysis, candidate lookup, re-rank; no HTTP).
 * Prints p50 / p90 / p99 of each and their ratio, and how many verdicts differ.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 npx tsx bench/check-compare.ts <other checkout> [index] [checks]
 *
 * The index (default bench-dedup) is a window `bench/service.ts` stored
 * (documents NEARDUP_BENCH_INGEST.. of its generator; default 10,000-19,999).
 * Half the checks are near-duplicates of stored documents, half new texts.
 * The first 10% of each are a warm-up and not counted.
 */
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeDoc, nearDuplicate } from "./service.js";
import { loadPoems } from "./poems.js";
import type { createFingerprinter } from "../src/core/fingerprinter.js";
import type { connectEngine } from "../src/engine/index.js";
import type { DedupService } from "../src/service/dedup-service.js";
import type { resolveDedupOptions } from "../src/service/options.js";

const T0 = Date.parse("2026-12-01T00:00:00Z");
const FIRST_STORED = Number(process.env.NEARDUP_BENCH_INGEST ?? 10_000);
const STORED = Number(process.env.NEARDUP_BENCH_STORED ?? 10_000);
/** This checkout's root. */
const HERE = fileURLToPath(new URL("..", import.meta.url));

type Checker = (text: string, time: number) => Promise<{ status: string; duplicate_of: string | null }>;

/** A service of the checkout at `root`, its modules loaded from there. */
async function checker(root: string, url: string, index: string): Promise<{ check: Checker; close: () => Promise<void> }> {
  const load = async <T>(path: string) => (await import(pathToFileURL(join(root, "src", path)).href)) as T;
  const fp = await load<{ createFingerprinter: typeof createFingerprinter }>("core/fingerprinter.ts");
  const engines = await load<{ connectEngine: typeof connectEngine }>("engine/index.ts");
  const services = await load<{ DedupService: typeof DedupService }>("service/dedup-service.ts");
  const options = await load<{ resolveDedupOptions: typeof resolveDedupOptions }>("service/options.ts");
  const engine = await engines.connectEngine({ url } as never);
  const service = new services.DedupService(engine, await fp.createFingerprinter(), options.resolveDedupOptions({ index, lshKeyBudget: 200 }));
  await service.ensureIndex();
  return {
    check: (text, time) => service.check(text, { time }),
    close: async () => {
      service.stop();
      await engine.close();
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function run(other: string, index = "bench-dedup", checks = 400): Promise<void> {
  const url = process.env.NEARDUP_ENGINE_URL ?? "http://127.0.0.1:9200";
  const poems = loadPoems();
  const ours = await checker(HERE, url, index);
  const theirs = await checker(other, url, index);
  const times = { ours: [] as number[], theirs: [] as number[] };
  let differ = 0;
  let duplicates = 0;
  const warm = Math.floor(checks / 10);
  for (let i = 0; i < checks; i++) {
    const n = FIRST_STORED + ((i * 7919) % STORED);
    const text = i % 2 === 0 ? nearDuplicate(makeDoc(poems, n), i) : makeDoc(poems, 90_000_000 + i);
    const time = T0 + n + 5_000;
    const order = i % 2 === 0 ? (["ours", "theirs"] as const) : (["theirs", "ours"] as const);
    const verdicts: Record<string, string> = {};
    for (const side of order) {
      const t = performance.now();
      const r = await (side === "ours" ? ours : theirs).check(text, time);
      if (i >= warm) times[side].push(performance.now() - t);
      verdicts[side] = `${r.status} ${r.duplicate_of}`;
    }
    if (verdicts.ours !== verdicts.theirs) differ++;
    if (verdicts.ours!.startsWith("duplicate")) duplicates++;
  }
  await ours.close();
  await theirs.close();
  const line = (name: string, xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${name}: p50 ${percentile(s, 50).toFixed(2)} / p90 ${percentile(s, 90).toFixed(2)} / p99 ${percentile(s, 99).toFixed(2)} ms`;
  };
  const p50 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  console.log(`${checks} checks on ${index} (${duplicates} duplicates by this checkout), ${checks - warm} timed each, interleaved`);
  console.log(line(other, times.theirs));
  console.log(line("this checkout", times.ours));
  console.log(`p50 ratio (other / this): ${(p50(times.theirs) / p50(times.ours)).toFixed(2)}x; verdicts that differ: ${differ}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [other, index, checks] = process.argv.slice(2);
  if (!other) {
    console.error("usage: npx tsx bench/check-compare.ts <other checkout> [index] [checks]");
    process.exit(2);
  }
  await run(other, index, checks ? Number(checks) : undefined);
}
