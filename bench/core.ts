/**
 * Core benchmarks (issue 3): fingerprint throughput on real Chinese text,
 * Hamming and Levenshtein against naive baselines measured in the same run,
 * and the tokenizer's share of fingerprint time. One core, no timing asserts.
 *
 *   npm run bench              # all benches (bench/run.ts)
 *   npx tsx bench/core.ts      # this one only
 *
 * Text: Debian `fortunes-zh` (/usr/share/games/fortunes/chinese, modern
 * Chinese, 2 MB; `apt-get install fortunes-zh`).
 */
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { createFingerprinter, createMixedTokenizer, hammingHalves, levenshtein, normalize } from "../src/core/index.js";
import { loadJiebaResources } from "../src/resources/jieba.js";

const FORTUNES = "/usr/share/games/fortunes/chinese";
const PAIR = ["你妈妈喊你回家吃饭哦，回家罗回家罗", "你妈妈叫你回家吃饭啦，回家罗回家罗"] as const;

/** Fortunes with ANSI colour codes, `%` separators and attributions removed, joined. */
function loadCorpus(): string {
  if (!existsSync(FORTUNES)) throw new Error(`${FORTUNES} not found: apt-get install fortunes-zh`);
  return readFileSync(FORTUNES, "utf8")
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split(/^%$/m)
    .map((f) => f.replace(/^\s*--.*$/gm, "").trim())
    .join("\n");
}

/** `count` texts of exactly `length` code points taken at spread-out offsets. */
function windows(corpus: string[], length: number, count: number): string[] {
  const out: string[] = [];
  const step = Math.max(1, Math.floor((corpus.length - length) / count));
  for (let i = 0; i < count; i++) out.push(corpus.slice(i * step, i * step + length).join(""));
  return out;
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

function popcountBigInt(x: bigint): number {
  let n = 0;
  while (x !== 0n) {
    x &= x - 1n;
    n++;
  }
  return n;
}

function textbookLevenshtein(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[y.length]!;
}

const fmt = (x: number, d = 1): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(): Promise<void> {
  console.log("## Core (bench/core.ts)\n");
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, load average ${loadavg()[0]!.toFixed(2)} at start\n`);
  const corpus = Array.from(loadCorpus());
  const resources = await loadJiebaResources();
  const fp = await createFingerprinter({ resources });
  const tokenizer = createMixedTokenizer(resources.segmentHan);

  console.log("| measure | result | baseline (same run) | ratio | goal |");
  console.log("|---|---|---|---|---|");
  for (const [length, count, goal] of [[200, 20_000, "≥ 10,000/s"], [2000, 2_000, ""]] as const) {
    const texts = windows(corpus, length, count);
    for (const t of texts.slice(0, 200)) fp.analyze(t); // warm up the JIT and jieba
    const total = time(() => {
      for (const t of texts) fp.analyze(t);
    });
    const normalized = texts.map(normalize);
    const tok = time(() => {
      for (const t of normalized) tokenizer.tokenize(t);
    });
    const jieba = time(() => {
      for (const t of normalized) resources.segmentHan(t);
    });
    console.log(`| fingerprints/s, ${length}-char Chinese (${fmt(count, 0)} texts) | ${fmt((count / total) * 1000, 0)}/s | | | ${goal} |`);
    console.log(`| tokenizer share of fingerprint time, ${length} chars | ${fmt((tok / total) * 100)}% (jieba cut alone ${fmt((jieba / total) * 100)}%) | | | |`);
  }

  // 1M Hamming comparisons over typed arrays vs BigInt XOR + popcount.
  const N = 1_000_000;
  const hi = new Uint32Array(N + 1);
  const lo = new Uint32Array(N + 1);
  for (let i = 0; i <= N; i++) {
    hi[i] = (Math.random() * 2 ** 32) >>> 0;
    lo[i] = (Math.random() * 2 ** 32) >>> 0;
  }
  const big = Array.from({ length: N + 1 }, (_, i) => (BigInt(hi[i]!) << 32n) | BigInt(lo[i]!));
  let sink = 0;
  const hammingRun = (): number =>
    time(() => {
      for (let i = 0; i < N; i++) sink += hammingHalves(hi[i]!, lo[i]!, hi[i + 1]!, lo[i + 1]!);
    });
  hammingRun();
  const ours = Math.min(hammingRun(), hammingRun(), hammingRun());
  const bigint = time(() => {
    for (let i = 0; i < N; i++) sink += popcountBigInt(big[i]! ^ big[i + 1]!);
  });
  console.log(`| 1M Hamming comparisons | ${fmt(ours, 2)} ms | BigInt ${fmt(bigint, 0)} ms | ${fmt(bigint / ours, 0)}x faster | ≤ 5 ms (original 100 ms) |`);

  // 1M Levenshtein comparisons of the original pair vs the textbook DP.
  const [a, b] = PAIR;
  for (let i = 0; i < 10_000; i++) sink += levenshtein(a, b);
  const lev = time(() => {
    for (let i = 0; i < N; i++) sink += levenshtein(a, b);
  });
  const dp = time(() => {
    for (let i = 0; i < N; i++) sink += textbookLevenshtein(a, b);
  });
  console.log(`| 1M Levenshtein comparisons (the original pair) | ${fmt(lev, 0)} ms | textbook DP ${fmt(dp, 0)} ms | ${fmt(dp / lev)}x faster | ≤ 200 ms (original 4,266 ms) |`);
  console.log(`\nload average ${loadavg()[0]!.toFixed(2)} at end`);
  if (sink === -1) console.log(sink);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
