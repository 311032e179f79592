/**
 * Embedded index benchmark (issue 4): build time, memory and lookup latency
 * of the segment tables at 1M / 10M / 50M fingerprints, with the same lookups
 * done by a full scan in the same run (on a sample) as the baseline.
 *
 *   npm run bench                                  # all benches; this one at 1M and 10M
 *   npx tsx bench/index.ts                         # this one only, 1M and 10M
 *   node --expose-gc --max-old-space-size=4096 --import tsx bench/index.ts --sizes 1e6,1e7,5e7
 *   NEARDUP_BENCH_INDEX_SIZES=5e7 npm run bench    # same sizes through the env
 *
 * Data: uniformly random 64-bit fingerprints, with 5% planted near-duplicates
 * (an earlier fingerprint with 1-6 bits flipped), 300 inserts per time unit.
 * Queries: half planted (a stored fingerprint with 0..radius bits flipped),
 * half random. Measures `FingerprintTable` (the typed-array core, no string
 * ids); a last row shows `SegmentIndex` with string ids at the smallest size.
 * One core, no timing asserts; --expose-gc makes the memory figures steadier.
 */
import { pathToFileURL } from "node:url";
import { FingerprintTable, SegmentIndex } from "../src/index/index.js";

const DEFAULT_SIZES = [1_000_000, 10_000_000];
/** Queries per radius: radius 3, and the slower neighbour-probing radii. */
const QUERIES = 20_000;
const QUERIES_WIDE = 2_000;
const SCAN_SAMPLE = 20;
const RADII = [3, 7, 8];

function parseSizes(argv: readonly string[]): number[] {
  const i = argv.indexOf("--sizes");
  const raw = i >= 0 ? argv[i + 1] : process.env.NEARDUP_BENCH_INDEX_SIZES;
  if (raw === undefined || raw === "") return DEFAULT_SIZES;
  return raw.split(",").map((s) => {
    const n = Math.round(Number(s));
    if (!(n > 0)) throw new Error(`--sizes: expected numbers like 1e6,5e7, got "${s}"`);
    return n;
  });
}

/** xorshift32: fast, seeded, good enough for uniform test fingerprints. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

function flip(v: { hi: number; lo: number }, bits: number, next: () => number): { hi: number; lo: number } {
  let { hi, lo } = v;
  const used = new Set<number>();
  while (used.size < bits) used.add(next() % 64);
  for (const b of used) {
    if (b < 32) lo = (lo ^ (1 << b)) >>> 0;
    else hi = (hi ^ (1 << (b - 32))) >>> 0;
  }
  return { hi, lo };
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function mem(): { rss: number; ab: number } {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, ab: m.arrayBuffers };
}

const MiB = 1024 * 1024;
const fmtMiB = (b: number): string => `${(b / MiB).toFixed(0)} MiB`;
const fmtUs = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;
const fmtInt = (n: number): string => n.toLocaleString("en-US");

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface Stored {
  hi: Uint32Array;
  lo: Uint32Array;
}

/** Generates `n` fingerprints (5% planted near-duplicates of earlier ones). */
function generate(n: number, next: () => number): Stored {
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    if (i > 0 && next() % 20 === 0) {
      const j = next() % i;
      const v = flip({ hi: hi[j]!, lo: lo[j]! }, 1 + (next() % 6), next);
      hi[i] = v.hi;
      lo[i] = v.lo;
    } else {
      hi[i] = next();
      lo[i] = next();
    }
  }
  return { hi, lo };
}

function queries(stored: Stored, radius: number, count: number, next: () => number): Array<{ hi: number; lo: number }> {
  const n = stored.hi.length;
  const out: Array<{ hi: number; lo: number }> = [];
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) {
      const j = next() % n;
      out.push(flip({ hi: stored.hi[j]!, lo: stored.lo[j]! }, next() % (radius + 1), next));
    } else out.push({ hi: next(), lo: next() });
  }
  return out;
}

function timeEach(qs: ReadonlyArray<{ hi: number; lo: number }>, fn: (hi: number, lo: number) => number): { times: Float64Array; hits: number } {
  const times = new Float64Array(qs.length);
  let hits = 0;
  for (let i = 0; i < qs.length; i++) {
    const q = qs[i]!;
    const t = process.hrtime.bigint();
    hits += fn(q.hi, q.lo);
    times[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  times.sort();
  return { times, hits };
}

async function benchSize(n: number, rows: string[]): Promise<void> {
  const next = prng(n);
  const stored = generate(n, next);
  const before = mem();
  const table = new FingerprintTable();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) table.insert(stored.hi[i]!, stored.lo[i]!, Math.floor(i / 300));
  const buildMs = performance.now() - t0;
  const after = mem();
  const header = `| ${fmtInt(n)} | ${(buildMs / 1000).toFixed(1)} s (${fmtInt(Math.round(n / (buildMs / 1000)))}/s) | ${fmtMiB(table.byteLength)} (${(table.byteLength / n).toFixed(1)} B/entry) | ${fmtMiB(after.rss - before.rss)} / ${fmtMiB(after.ab - before.ab)} |`;
  const cells: string[] = [];
  for (const radius of RADII) {
    const qs = queries(stored, radius, radius <= 3 ? QUERIES : QUERIES_WIDE, next);
    // Warm-up, then measure.
    timeEach(qs.slice(0, 500), (hi, lo) => table.lookup(hi, lo, radius));
    const indexed = timeEach(qs, (hi, lo) => table.lookup(hi, lo, radius));
    const sample = qs.slice(0, SCAN_SAMPLE);
    const scanned = timeEach(sample, (hi, lo) => table.scan(hi, lo, radius));
    // Same answers on the sample (a check, not a timing).
    for (const q of sample) {
      const a = table.lookup(q.hi, q.lo, radius);
      const want = table.scan(q.hi, q.lo, radius);
      if (a !== want) throw new Error(`lookup found ${a}, scan ${want} at radius ${radius}`);
    }
    const p50 = percentile(indexed.times, 0.5);
    const p99 = percentile(indexed.times, 0.99);
    const scanP50 = percentile(scanned.times, 0.5);
    cells.push(`r=${radius}: p50 ${fmtUs(p50)}, p99 ${fmtUs(p99)}; scan p50 ${(scanP50).toFixed(1)} ms (${fmtInt(Math.round(scanP50 / p50))}x)`);
  }
  rows.push(`${header} ${cells.join("<br>")} |`);
  if (n === Math.min(...parseSizes(process.argv))) rows.push(await benchStringIds(stored));
}

async function benchStringIds(stored: Stored): Promise<string> {
  const n = stored.hi.length;
  const ids = Array.from({ length: n }, (_, i) => `doc-${i}`);
  const before = mem();
  const index = new SegmentIndex();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) index.insert(ids[i]!, { hi: stored.hi[i]!, lo: stored.lo[i]! }, Math.floor(i / 300));
  const buildMs = performance.now() - t0;
  const after = mem();
  const next = prng(99);
  const qs = queries(stored, 3, QUERIES, next);
  timeEach(qs.slice(0, 2000), (hi, lo) => index.lookup({ hi, lo }, 3).length);
  const r = timeEach(qs, (hi, lo) => index.lookup({ hi, lo }, 3).length);
  return `| ${fmtInt(n)}, SegmentIndex with string ids | ${(buildMs / 1000).toFixed(1)} s | ${fmtMiB(index.byteLength)} typed arrays + id strings | ${fmtMiB(after.rss - before.rss)} / ${fmtMiB(after.ab - before.ab)} | r=3: p50 ${fmtUs(percentile(r.times, 0.5))}, p99 ${fmtUs(percentile(r.times, 0.99))} (with result objects) |`;
}

export async function run(): Promise<void> {
  const sizes = parseSizes(process.argv);
  console.log("## Embedded index");
  console.log();
  console.log(
    `Node ${process.version}, ${fmtInt(QUERIES)} queries at radius 3 and ${fmtInt(QUERIES_WIDE)} at radius 7 and 8 (half planted near-duplicates, half random); scan baseline on ${SCAN_SAMPLE} of them.`,
  );
  console.log();
  console.log("| fingerprints | build | typed arrays | RSS / ArrayBuffer delta | lookup latency; full scan (ratio of p50s) |");
  console.log("|---|---|---|---|---|");
  const rows: string[] = [];
  for (const n of sizes) {
    const before = rows.length;
    await benchSize(n, rows);
    for (const row of rows.slice(before)) console.log(row);
    gc();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
