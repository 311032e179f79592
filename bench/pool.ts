/**
 * The analysis pool (issue 10): analyses/s through `analyzeMany`, in this
 * thread against pools of 1 and 2 workers, rounds interleaved, in the same
 * run; the pool's analyses are checked against in-thread ones.
 *
 *   npx tsx bench/pool.ts [rounds]     # default 5
 *
 * Texts are the service bench's documents (2-8 poems, bench/service.ts), sent
 * in requests of 500 one after the other (as bulk requests reach the service), and
 * every analyzer gets texts never seen before in every round, as a service
 * does: analysing the same texts again would flatter whichever analyzer saw
 * them last (its piece and term caches answer). Until 2026-12-03 this bench
 * fed every analyzer the same 10,000 overlapping windows of one corpus, and
 * the in-thread analyzer had just analysed them all for the check.
 *
 * Wall time is what a pool changes, so the figures are wall-time medians;
 * CPU time (every thread of the process) says what the pool costs.
 */
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { NeardupError, createFingerprinter } from "../src/core/index.js";
import type { Fingerprinter } from "../src/core/index.js";
import { createAnalyzerPool, createInThreadAnalyzer } from "../src/workers/index.js";
import type { AnalyzeOptions, Analyzer } from "../src/workers/index.js";
import { loadPoems } from "./poems.js";
import { makeDoc } from "./service.js";

const fmt = (x: number, d = 0): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(rounds = 5): Promise<void> {
  console.log("## Analysis pool (bench/pool.ts)\n");
  const poems = loadPoems();
  const count = 5_000;
  let next = 90_000_000; // document numbers the other benches do not use
  const fresh = (n: number) => Array.from({ length: n }, () => ({ text: makeDoc(poems, next++) }));
  const fp = await createFingerprinter();
  const check: Fingerprinter = await createFingerprinter(); // a second fingerprinter: the check does not warm the in-thread one
  const two = await createAnalyzerPool(fp, { threads: 2 });
  const analyzers: [string, Analyzer, AnalyzeOptions][] = [
    ["in-thread", createInThreadAnalyzer(fp), {}],
    ["pool, 1 worker", await createAnalyzerPool(fp, { threads: 1 }), {}],
    ["pool, 2 workers", two, {}],
    ["pool, 2 workers, no term Maps back (the write path)", two, { vectors: false }],
  ];
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, ${fmt(count)} new bench/service.ts documents per analyzer and round, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at start\n`);
  for (const [, a, o] of analyzers) await a.analyzeMany(fresh(2000), o); // warm-up: JIT, caches
  const times = new Map<string, { wall: number; cpu: number }[]>(analyzers.map(([n]) => [n, []]));
  let differ = 0;
  let chars = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [n, a, o] of r % 2 === 0 ? analyzers : [...analyzers].reverse()) {
      const texts = fresh(count);
      for (const t of texts) chars += t.text.length;
      const c = process.cpuUsage();
      const t = performance.now();
      // In requests of 500, one at a time, as a bulk request reaches the service: only the fingerprints are kept.
      const out: string[] = [];
      for (let i = 0; i < texts.length; i += 500) for (const x of await a.analyzeMany(texts.slice(i, i + 500), o)) out.push(x instanceof NeardupError ? x.message : x.hex);
      const wall = performance.now() - t;
      const used = process.cpuUsage(c);
      times.get(n)!.push({ wall, cpu: (used.user + used.system) / 1000 });
      out.forEach((hex, i) => {
        if (hex !== check.analyze(texts[i]!.text).hex) differ++;
      });
    }
  }
  const med = (n: string, k: "wall" | "cpu"): number => times.get(n)!.map((x) => x[k]).sort((x, y) => x - y)[rounds >> 1]!;
  const base = med("in-thread", "wall");
  console.log(`Mean ${fmt(chars / (rounds * analyzers.length * count))} characters a text.\n`);
  console.log("| analyzer | analyses/s (median of rounds) | best round | vs in-thread (medians) | CPU µs a text (median) |");
  console.log("|---|---|---|---|---|");
  for (const [n] of analyzers) {
    const best = Math.min(...times.get(n)!.map((x) => x.wall));
    console.log(`| ${n} | ${fmt((count / med(n, "wall")) * 1000)} | ${fmt((count / best) * 1000)} | ${fmt(base / med(n, "wall"), 2)}x | ${fmt((med(n, "cpu") * 1000) / count)} |`);
  }
  console.log(`\n${differ} analyses differ from the in-thread ones; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at end`);
  for (const a of new Set(analyzers.map(([, x]) => x))) await a.close();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run(Number(process.argv[2] ?? 5));
