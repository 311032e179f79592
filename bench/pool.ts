/**
 * The analysis pool (issue 10): analyses/s of 200-character Chinese texts
 * through `analyzeMany`, in this thread against pools of 1 and 2 workers,
 * rounds interleaved, in the same run; the pool's analyses are checked
 * against the in-thread ones.
 *
 *   npx tsx bench/pool.ts [rounds]     # default 5
 *
 * Wall time is what a pool changes, so the figures are wall-time medians:
 * on a machine shared with other work they are bounded by the free cores.
 */
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { NeardupError, createFingerprinter } from "../src/core/index.js";
import { createAnalyzerPool, createInThreadAnalyzer } from "../src/workers/index.js";
import type { Analyzer } from "../src/workers/index.js";
import { loadBenchCorpus } from "./corpus.js";

const fmt = (x: number, d = 0): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(rounds = 5): Promise<void> {
  console.log("## Analysis pool (bench/pool.ts)\n");
  const { name, text } = loadBenchCorpus();
  const corpus = Array.from(text);
  const count = 10_000;
  const step = Math.floor((corpus.length - 200) / count);
  const texts = Array.from({ length: count }, (_, i) => ({ text: corpus.slice(i * step, i * step + 200).join("") }));
  const fp = await createFingerprinter();
  const analyzers: [string, Analyzer][] = [
    ["in-thread", createInThreadAnalyzer(fp)],
    ["pool, 1 worker", await createAnalyzerPool(fp, { threads: 1 })],
    ["pool, 2 workers", await createAnalyzerPool(fp, { threads: 2 })],
  ];
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, ${name}, ${fmt(count)} texts of 200 code points, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at start\n`);
  const expected = (await analyzers[0]![1].analyzeMany(texts)).map((a) => (a instanceof NeardupError ? a.message : a.hex));
  for (const [, a] of analyzers) await a.analyzeMany(texts.slice(0, 500)); // warm-up
  const times = new Map<string, number[]>(analyzers.map(([n]) => [n, []]));
  let differ = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [n, a] of r % 2 === 0 ? analyzers : [...analyzers].reverse()) {
      const t = performance.now();
      const out = await a.analyzeMany(texts);
      times.get(n)!.push(performance.now() - t);
      out.forEach((x, i) => {
        if ((x instanceof NeardupError ? x.message : x.hex) !== expected[i]) differ++;
      });
    }
  }
  const med = (n: string): number => [...times.get(n)!].sort((x, y) => x - y)[rounds >> 1]!;
  const base = med("in-thread");
  console.log("| analyzer | analyses/s (median of rounds) | best round | vs in-thread (medians) |");
  console.log("|---|---|---|---|");
  for (const [n] of analyzers) {
    console.log(`| ${n} | ${fmt((count / med(n)) * 1000)} | ${fmt((count / Math.min(...times.get(n)!)) * 1000)} | ${fmt(base / med(n), 2)}x |`);
  }
  console.log(`\n${differ} analyses differ from the in-thread ones; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at end`);
  for (const [, a] of analyzers) await a.close();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run(Number(process.argv[2] ?? 5));
