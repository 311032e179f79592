/**
 * `neardup dedup` with 1 and 2 analysis workers on the same 100,710 poems
 * (issue 10), runs alternated, outputs compared byte for byte.
 *
 *   npx tsx bench/cli.ts [rounds]     # default 1 round = one run per worker count
 *
 * Corpus: both editions of the Complete Tang Poems in npm `chinese-poetry`
 * (全唐诗 and 御定全唐诗, with many natural near-duplicates), written to
 * bench/out/tang.jsonl as in docs/benchmarks.md. Each run is the built CLI
 * (`npm run build` first) under `/usr/bin/time`: wall time with the dictionary
 * loads, user + system CPU seconds and peak RSS.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = join(import.meta.dirname, "..");
const OUT = join(ROOT, "bench", "out");
const CORPUS = join(OUT, "tang.jsonl");
const CLI = join(ROOT, "dist", "src", "cli", "main.js");

function writeCorpus(): number {
  const p = join(ROOT, "node_modules", "chinese-poetry", "dist");
  const lines: string[] = [];
  for (const [ed, dir, re] of [
    ["qts", join(p, "quantangshi"), /^poet\.tang\.\d+\.json$/],
    ["yd", join(p, "yudingquantangshi", "json"), /^\d+\.json$/],
  ] as const) {
    for (const f of readdirSync(dir).filter((x) => re.test(x)).sort()) {
      const poems = JSON.parse(readFileSync(join(dir, f), "utf8")) as { title?: string; paragraphs?: string[] }[];
      poems.forEach((x, i) => lines.push(JSON.stringify({ id: `${ed}/${f.replace(".json", "")}/${i}`, title: x.title, text: (x.paragraphs ?? []).join("") })));
    }
  }
  mkdirSync(OUT, { recursive: true });
  writeFileSync(CORPUS, `${lines.join("\n")}\n`);
  return lines.length;
}

interface Run {
  workers: number;
  wall: number;
  cpu: number;
  rssMb: number;
  documents: number;
  output: string;
}

function runCli(workers: number): Run {
  const out = join(OUT, `tang.verdicts.w${workers}.jsonl`);
  const stats = join(OUT, `tang.time.w${workers}.txt`);
  execFileSync("/usr/bin/time", ["-f", "%e %U %S %M", "-o", stats, "node", CLI, "dedup", CORPUS, "--id-field", "id", "--out", out, "--workers", String(workers), "--no-progress"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 1 << 26,
  });
  const [wall, user, sys, rss] = readFileSync(stats, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number) as [number, number, number, number];
  const output = readFileSync(out, "utf8");
  return { workers, wall, cpu: user + sys, rssMb: rss / 1024, documents: output.split("\n").length - 1, output };
}

const fmt = (x: number, d = 0): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(rounds = 1): Promise<void> {
  if (!existsSync(CLI)) throw new Error(`${CLI} not found: npm run build first`);
  console.log("## `neardup dedup` with analysis workers (bench/cli.ts)\n");
  const poems = writeCorpus();
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, ${fmt(poems)} poems, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at start\n`);
  const runs: Run[] = [];
  for (let r = 0; r < rounds; r++) for (const w of r % 2 === 0 ? [1, 2] : [2, 1]) runs.push(runCli(w));
  const reference = runs[0]!.output;
  console.log("| workers | documents | wall time (dictionary loads included) | docs/s | CPU time (user + sys) | peak RSS | output identical to the first run |");
  console.log("|---|---|---|---|---|---|---|");
  for (const x of runs) {
    console.log(`| ${x.workers} | ${fmt(x.documents)} | ${fmt(x.wall, 1)} s | ${fmt(x.documents / x.wall)} | ${fmt(x.cpu, 1)} s | ${fmt(x.rssMb)} MB | ${x.output === reference ? "yes" : "NO"} |`);
  }
  const med = (w: number): number => {
    const xs = runs.filter((x) => x.workers === w).map((x) => x.wall).sort((a, b) => a - b);
    return xs[xs.length >> 1]!;
  };
  console.log(`\nspeed-up of 2 workers over 1 (median wall times): ${fmt(med(1) / med(2), 2)}x; load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at end`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run(Number(process.argv[2] ?? 1));
