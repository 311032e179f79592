/**
 * Core benchmarks (issue 3): fingerprint throughput on real Chinese text,
 * Hamming and Levenshtein against naive baselines measured in the same run,
 * and the tokenizer's share of fingerprint time. One core, no timing asserts.
 *
 *   npm run bench              # all benches (bench/run.ts)
 *   npx tsx bench/core.ts      # this one only
 *
 * Text: Debian `fortunes-zh` (/usr/share/games/fortunes/chinese, modern
 * Chinese, 2 MB; `bash bench/install-corpora.sh` installs it). Without it the
 * bench runs on npm `chinese-poetry` (全唐诗) and says so in its header.
 *
 * The 20,000 windows of 200 code points overlap (the corpus has 0.7M
 * characters), so sentences repeat across texts and jieba's piece cache
 * (src/core/segment-cache.ts) answers many of them, as it would for copies
 * in production; the "distinct texts" rows use windows that never overlap,
 * where every piece is new: the cache-cold rate.
 */
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { distance as fastestLevenshtein } from "fastest-levenshtein";
import {
  addBigramFeatures,
  codePointLength,
  countTerms,
  createFeatureHasher,
  createFingerprinter,
  createMixedTokenizer,
  hammingDistances,
  levenshtein,
  normalize,
  parseIdfDictionary,
  quantizeWeight,
  tfidfVector,
  toHex,
} from "../src/core/index.js";
import type { FeatureHasher, Fingerprinter, Tokenizer } from "../src/core/index.js";
import { accumulate, signBits } from "../src/core/simhash-accumulator.js";
import { loadJiebaResources } from "../src/resources/jieba.js";
import { cachedSegmenter, CPPJIEBA_SEPARATORS } from "../src/core/segment-cache.js";
import * as jieba from "nodejs-jieba";
import { loadBenchCorpus, windows } from "./corpus.js";

const PAIR = ["你妈妈喊你回家吃饭哦，回家罗回家罗", "你妈妈叫你回家吃饭啦，回家罗回家罗"] as const;

/** CPU time (user + system, ms) of every `time` call, in order: stable on a shared machine where wall time is not. */
const cpuTimes: number[] = [];

/** Wall time of `fn` in ms; its CPU time goes to `cpuTimes`. */
function time(fn: () => void): number {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  cpuTimes.push((u.user + u.system) / 1000);
  return wall;
}

/**
 * Best and median wall time of `reps` runs of `fn` (ms), and the median CPU
 * time. The machine is shared: the best wall time is the one-core figure, the
 * CPU time leaves out waiting for the other processes.
 */
function repeat(reps: number, fn: () => void): { best: number; median: number; cpu: number } {
  const from = cpuTimes.length;
  const ts = Array.from({ length: reps }, () => time(fn)).sort((x, y) => x - y);
  return { best: ts[0]!, median: ts[reps >> 1]!, cpu: median(cpuTimes.slice(from)) };
}

/**
 * The fingerprint pipeline as it was before the fast paths (feature Map with
 * string bigram keys, per-bit simhash loop, 64 additions per feature): the
 * baseline for fingerprints/s, and a check that both give the same bits.
 */
function referenceFingerprint(fp: Fingerprinter, tokenizer: Tokenizer, hasher: FeatureHasher, bigramIdf: number, text: string): string {
  const normalized = normalize(text);
  const tokens = tokenizer.tokenize(normalized);
  const vector = tfidfVector(countTerms(tokens, fp.stopWords), tokens.length, fp.idf);
  const features = codePointLength(normalized) < fp.shortTextLength ? addBigramFeatures(vector, normalized, bigramIdf) : vector;
  const s = new Float64Array(64);
  let total = 0;
  for (const [f, w] of features) {
    const q = quantizeWeight(w);
    if (q === 0) continue;
    total += q;
    const h = hasher.hash(f, 0);
    accumulate(s, 0, h.hi, h.lo, q);
  }
  return toHex({ hi: signBits(s, 32, total), lo: signBits(s, 0, total) });
}

function popcountBigInt(x: bigint): number {
  let n = 0;
  while (x !== 0n) {
    x &= x - 1n;
    n++;
  }
  return n;
}

/** The textbook dynamic programme over code points: the baseline here, and the oracle of the edit-distance tests. */
export function textbookLevenshtein(a: string, b: string): number {
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

function median(xs: number[]): number {
  return [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
}

const fmt = (x: number, d = 1): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(): Promise<void> {
  console.log("## Core (bench/core.ts)\n");
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at start\n`);
  const { name, text } = loadBenchCorpus();
  console.log(`Text: ${name}\n`);
  const corpus = Array.from(text);
  const resources = await loadJiebaResources();
  // The baseline and the tokenizer-share rows use jieba's cut without the piece cache.
  const rawCut = (t: string): string[] => jieba.cut(t, true);
  const tokenizer = createMixedTokenizer(rawCut);
  const bigramIdf = parseIdfDictionary(resources.idfText).unknownIdf;

  console.log("| measure | result: best / median wall time of chunks or runs (median CPU time) | baseline (same run) | ratio (medians) | goal |");
  console.log("|---|---|---|---|---|");
  for (const [length, wanted, distinct, goal] of [[200, 20_000, false, "≥ 10,000/s"], [200, 3_000, true, ""], [2000, 2_000, false, ""], [2000, 300, true, ""]] as const) {
    // Distinct rows: as many windows as fit without overlap, up to `wanted`.
    const count = distinct ? Math.min(wanted, Math.floor(corpus.length / length / 10) * 10) : wanted;
    const texts = windows(corpus, length, count);
    // A fresh fingerprinter and piece cache per row: no row starts with another row's cached pieces or hashes.
    const segmentHan = cachedSegmenter(rawCut, { separators: CPPJIEBA_SEPARATORS, joiner: "\n" });
    const fp = await createFingerprinter({ resources: { ...resources, segmentHan } });
    const warm = windows(corpus.slice(corpus.length >> 1), length, 200);
    for (const t of warm) fp.analyze(t); // warm up the JIT and jieba on other text
    const refHasher = await createFeatureHasher();
    for (const t of warm) referenceFingerprint(fp, tokenizer, refHasher, bigramIdf, t);
    // One pass over the texts (cold hash caches for new words, as in production)
    // in 10 chunks, each timed with the fast path then with the baseline, so
    // both see the same load; the baseline checks every fingerprint.
    const chunk = count / 10;
    const ours: number[] = [];
    const refs: number[] = [];
    const oursCpu: number[] = [];
    const refCpu: number[] = [];
    let mismatches = 0;
    for (let c = 0; c < 10; c++) {
      const part = texts.slice(c * chunk, (c + 1) * chunk);
      const hexes: string[] = [];
      ours.push(time(() => {
        for (const t of part) hexes.push(fp.analyze(t).hex);
      }));
      oursCpu.push(cpuTimes.at(-1)!);
      refs.push(time(() => {
        for (let i = 0; i < part.length; i++) if (referenceFingerprint(fp, tokenizer, refHasher, bigramIdf, part[i]!) !== hexes[i]) mismatches++;
      }));
      refCpu.push(cpuTimes.at(-1)!);
    }
    const normalized = texts.map(normalize);
    const tok = time(() => {
      for (const t of normalized) tokenizer.tokenize(t);
    });
    const cut = time(() => {
      for (const t of normalized) rawCut(t);
    });
    const rate = (ms: number): number => (chunk / ms) * 1000;
    const [best, med] = [Math.min(...ours), median(ours)];
    console.log(
      `| fingerprints/s, ${length}-char Chinese (${fmt(count, 0)} ${distinct ? "distinct" : "overlapping"} texts, first pass, 10 chunks) | ${fmt(rate(best), 0)}/s / ${fmt(rate(med), 0)}/s (CPU ${fmt(rate(median(oursCpu)), 0)}/s) | ` +
        `pre-fast-path pipeline, uncached jieba ${fmt(rate(Math.min(...refs)), 0)}/s / ${fmt(rate(median(refs)), 0)}/s (CPU ${fmt(rate(median(refCpu)), 0)}/s); ${mismatches} of ${fmt(count, 0)} fingerprints differ | ${fmt(median(refs) / med, 2)}x (CPU ${fmt(median(refCpu) / median(oursCpu), 2)}x) | ${goal} |`,
    );
    const total = ours.reduce((x, y) => x + y, 0);
    console.log(`| uncached tokenizer time / fingerprint time, ${length} chars, ${distinct ? "distinct" : "overlapping"} | ${fmt((tok / total) * 100)}% (jieba cut alone ${fmt((cut / total) * 100)}%, ${fmt((count / cut) * 1000, 0)} cuts/s) | | | |`);
  }

  // 1M Hamming comparisons: one query against a table of 1M fingerprints
  // (interleaved hi/lo, as the embedded index stores them) vs BigInt XOR + popcount.
  const N = 1_000_000;
  const table = new Uint32Array(2 * N);
  for (let i = 0; i < table.length; i++) table[i] = (Math.random() * 2 ** 32) >>> 0;
  const distances = new Uint8Array(N);
  let q = 0;
  const ham = repeat(21, () => hammingDistances(table, table[2 * q]!, table[2 * q++ + 1]!, distances));
  const big = Array.from({ length: N }, (_, i) => (BigInt(table[2 * i]!) << 32n) | BigInt(table[2 * i + 1]!));
  const bigint = repeat(3, () => {
    const query = big[q++]!;
    for (let i = 0; i < N; i++) distances[i] = popcountBigInt(big[i]! ^ query);
  });
  console.log(
    `| 1M Hamming comparisons (hammingDistances, 21 runs) | ${fmt(ham.best, 2)} ms / ${fmt(ham.median, 2)} ms (CPU ${fmt(ham.cpu, 2)} ms) | BigInt XOR + popcount ${fmt(bigint.best, 0)} / ${fmt(bigint.median, 0)} ms | ${fmt(bigint.median / ham.median, 0)}x | ≤ 5 ms (original 100 ms) |`,
  );

  // 1M Levenshtein comparisons of the original pair vs fastest-levenshtein and the textbook DP.
  const [a, b] = PAIR;
  const loop = (n: number, f: (x: string, y: string) => number): (() => void) => () => {
    let sum = 0; // a local, not a captured variable: no boxed number per iteration
    for (let i = 0; i < n; i++) sum += f(a, b);
    if (sum !== n * 2) throw new Error(`edit distance of the pair must be 2, got ${sum / n}`);
  };
  loop(10_000, levenshtein)();
  const lev = repeat(7, loop(N, levenshtein));
  const fast = repeat(3, loop(N, fastestLevenshtein));
  const dp = repeat(3, loop(N / 10, textbookLevenshtein));
  console.log(
    `| 1M Levenshtein comparisons (the original pair, 7 runs) | ${fmt(lev.best, 0)} ms / ${fmt(lev.median, 0)} ms (CPU ${fmt(lev.cpu, 0)} ms) | fastest-levenshtein ${fmt(fast.best, 0)} / ${fmt(fast.median, 0)} ms (CPU ${fmt(fast.cpu, 0)} ms); textbook DP ${fmt(dp.best * 10, 0)} / ${fmt(dp.median * 10, 0)} ms (100k x 10) | ${fmt(fast.median / lev.median)}x; ${fmt((dp.median * 10) / lev.median)}x | ≤ 200 ms (original 4,266 ms) |`,
  );
  console.log(`\nload average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at end`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
