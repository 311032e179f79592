/**
 * Fingerprint rate of this checkout's core against another checkout's (e.g.
 * main before a change), each in a process of its own: rounds alternate the
 * two (A B B A A B ...), and each round is a fresh process that warms up on
 * 200 texts, then analyses `count` windows of `length` code points of the
 * bench corpus (bench/corpus.ts) once, timed by its CPU time. Prints every
 * round, the median rate of each and their ratio, and checks that both gave
 * the same fingerprints (a digest of them).
 *
 *   npx tsx bench/core-ab.ts <other checkout> [count] [length] [rounds]   # default 6000 200 8
 *
 * Why not bench/core-compare.ts: it runs both cores in one process, in chunks
 * of a tenth of a second, and an A/A run of it (a checkout against a copy of
 * itself, 3,000 distinct texts) gave 0.98x and 1.13x: the JIT and the garbage
 * collector treat the two module copies unevenly. Processes of their own do
 * not share that state.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Core from "../src/core/index.js";

interface Round {
  rate: number;
  digest: string;
}

/** One round in this process: the core of `tree`, `count` texts of `length` code points. */
async function one(tree: string, count: number, length: number): Promise<Round> {
  const core = (await import(pathToFileURL(resolve(tree, "src/core/index.ts")).href)) as typeof Core;
  // The corpus of this checkout for both, so that both analyse the same texts.
  const { loadBenchCorpus, windows } = await import("./corpus.js");
  const corpus = Array.from(loadBenchCorpus().text);
  const texts = windows(corpus, length, count);
  const half = corpus.slice(corpus.length >> 1);
  const fingerprinter = await core.createFingerprinter();
  for (let i = 0; i < 200; i++) fingerprinter.analyze(half.slice(i * 1000, i * 1000 + length).join(""));
  const hexes: string[] = [];
  const start = process.cpuUsage();
  for (const t of texts) hexes.push(fingerprinter.analyze(t).hex);
  const used = process.cpuUsage(start);
  return { rate: count / ((used.user + used.system) / 1e6), digest: createHash("sha256").update(hexes.join("\n")).digest("hex").slice(0, 16) };
}

export function run(other: string, count = 6000, length = 200, rounds = 8): void {
  const self = fileURLToPath(import.meta.url);
  const ours = resolve(self, "../..");
  const trees = { theirs: resolve(other), ours };
  const rates: Record<keyof typeof trees, number[]> = { theirs: [], ours: [] };
  const digests = new Set<string>();
  for (let r = 0; r < rounds; r++) {
    // A B, B A, A B, ...: neither is always first.
    const order: (keyof typeof trees)[] = r % 2 === 0 ? ["theirs", "ours"] : ["ours", "theirs"];
    for (const which of order) {
      const out = execFileSync("npx", ["tsx", self, "--one", trees[which], String(count), String(length)], { encoding: "utf8" });
      const round = JSON.parse(out.trim().split("\n").at(-1)!) as Round;
      rates[which].push(round.rate);
      digests.add(round.digest);
      console.log(`round ${r + 1} ${which === "ours" ? "this checkout" : other}: ${round.rate.toFixed(0)}/s`);
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const rate = (x: number): string => x.toLocaleString("en-US", { maximumFractionDigits: 0 });
  console.log(
    `${length}-char texts x ${count}, ${rounds} rounds each: ${other} ${rate(median(rates.theirs))}/s, this checkout ${rate(median(rates.ours))}/s (medians of CPU-time rates), ratio ${(median(rates.ours) / median(rates.theirs)).toFixed(2)}x; fingerprints ${digests.size === 1 ? "the same" : "DIFFER"}`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  if (args[0] === "--one") {
    console.log(JSON.stringify(await one(args[1]!, Number(args[2]), Number(args[3]))));
  } else {
    const [other, count, length, rounds] = args;
    if (other === undefined) throw new Error("usage: npx tsx bench/core-ab.ts <other checkout> [count] [length] [rounds]");
    run(other, Number(count ?? 6000), Number(length ?? 200), Number(rounds ?? 8));
  }
}
