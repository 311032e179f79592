/**
 * Quality benchmark (issue 6): neardup's verdict at its defaults against peers
 * on the same labelled pairs of real text. Usage:
 *
 *   npm run bench:quality            # build pairs, score, run Python peers, print the table
 *   npm run bench:quality -- --seed 7
 *
 * neardup is reported as the pairwise verdict (`compare` on every pair), and
 * end to end, where a pair counts as found only if the verdict says duplicate
 * AND the candidate lookup would have returned a for b (the incoming text):
 * b is within its bucket's searchRadius of a (segment lookup), OR the two share
 * at least one LSH key (`Analysis.lsh`: MinHash band keys and, for short
 * texts, word keys and block keys; scheme lsh3; b's lookup-only block keys,
 * `lookupKeysOf`, against a's stored keys, as the service looks up). Rows for simhash
 * alone (the radii before lsh1) and for other LSH shingles/bandings are beside
 * it; the radius table shows what other radii would find and what they cost,
 * and the LSH table the key count and the candidate rate of each banding.
 *
 * Writes bench/out/quality/{pairs.jsonl,peer-input.jsonl,peer-output.json,results.json}.
 * Python peers need bench/quality/.venv (see docs/quality.md); without it the
 * Python columns are left out and said so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  bandKeys,
  blockKeys,
  bucketFor,
  createFingerprinter,
  editSimilarity,
  hamming,
  minhashSignature,
  permutationSeeds,
  segmentRadius,
  shingleHashes,
  trigramJaccard,
  wordKeys,
  lookupKeysOf,
  CorpusIdf,
} from "../../src/core/index.js";
import type { VerdictOptions } from "../../src/core/index.js";
import { OUT_DIR, writeDataset } from "./build-dataset.js";
import { analyzePair, BUCKETS, DEFAULT_SIZES, HARD_NEGATIVE_TIERS, scaledSizes } from "./dataset.js";
import type { Bucket, Pair } from "./dataset.js";
import { applies, bestRules } from "./calibrate.js";
import type { Measured, Rules } from "./calibrate.js";
import { best, curve, range, score } from "./metrics.js";
import type { CurvePoint, Scores } from "./metrics.js";

interface Row extends Measured {
  pair: Pair;
  plainDistance: number;
  verdict: boolean;
  /** The rule that fired at the defaults (null: not a duplicate). */
  rule: string | null;
  /** Search radius for b, the incoming text, as the service looks it up: its own length's bucket. */
  radius: number;
  /** The radius of b's bucket before lsh1 (11 / 11 / 7 / 3 / 3): the simhash-only baseline. */
  oldRadius: number;
  /** Per LSH_VARIANTS entry: a and b share at least one band key. */
  lsh: boolean[];
  compareMs: number;
  /** Brute-force character 3-gram Jaccard of the normalized texts (the peer of issue 14). */
  jac3: number;
  /** The default verdict with an IDF table fit on every text of the pair set (`neardup idf fit`). */
  corpusVerdict: boolean;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const pct = (x: number): string => x.toFixed(3);

/** Simhash-only search radii by the length of b before lsh1 (bucket bounds 50 / 200 / 1,000 / 5,000). */
function oldRadius(length: number): number {
  return length < 200 ? 11 : length < 1000 ? 7 : 3;
}

interface LshVariant {
  name: string;
  /** Character shingle length. */
  k: number;
  bands: number;
  rows: number;
  /** With the word keys of short texts (lsh2, word-keys.ts). */
  words?: boolean;
  /** With the block keys of short texts too (lsh3, block-keys.ts). */
  blocks?: boolean;
}

/** LSH choices measured; the first is the default, lsh3 (checked against `Analysis.lsh`). */
const LSH_VARIANTS: LshVariant[] = [
  { name: "char4 16x3 + word keys + block keys (lsh3)", k: 4, bands: 16, rows: 3, words: true, blocks: true },
  { name: "char4 16x3 + word keys (lsh2)", k: 4, bands: 16, rows: 3, words: true },
  { name: "char4 16x3 (lsh1)", k: 4, bands: 16, rows: 3 },
  { name: "char3 16x4", k: 3, bands: 16, rows: 4 },
  { name: "char4 24x3", k: 4, bands: 24, rows: 3 },
  { name: "char5 24x3", k: 5, bands: 24, rows: 3 },
  { name: "char4 16x2", k: 4, bands: 16, rows: 2 },
];

function lshKeys(normalized: string, v: LshVariant): string[] {
  const hashes = shingleHashes(normalized, v.k);
  if (hashes.length === 0) return [];
  const keys = bandKeys(minhashSignature(hashes, permutationSeeds(v.bands * v.rows)), v.bands, v.rows);
  return [...keys, ...(v.words === true ? wordKeys(normalized) : []), ...(v.blocks === true ? blockKeys(normalized) : [])];
}

/**
 * LSH candidate rate: over every (b_i, a_j) with i != j among the scored
 * pairs, the share that have a band key in common, as engine hits per lookup
 * per million stored documents. The pair set is dense in same-template texts
 * (same poet, same mailing list), so this errs high for a general corpus.
 */
function lshHitsPerMillion(keysA: string[][], keysB: string[][]): number {
  const index = new Map<string, number[]>();
  keysA.forEach((keys, j) => {
    for (const k of keys) {
      const list = index.get(k);
      if (list) list.push(j);
      else index.set(k, [j]);
    }
  });
  let hits = 0;
  keysB.forEach((keys, i) => {
    const found = new Set<number>();
    for (const k of keys) for (const j of index.get(k) ?? []) if (j !== i) found.add(j);
    hits += found.size;
  });
  const n = keysA.length;
  return (1e6 * hits) / Math.max(1, n * (n - 1));
}

async function main(): Promise<void> {
  const seed = Number(arg("seed", "20260601"));
  const scale = Number(arg("scale", "1"));
  const { pairs } = writeDataset(seed, scale === 1 ? DEFAULT_SIZES : scaledSizes(scale));
  const fp = await createFingerprinter();
  // Corpus IDF as `neardup idf fit` builds it: document frequencies of the
  // core's tokens (stop words included) over every text of the set.
  const tokensOf = (t: string): string[] => {
    try {
      return fp.tokenize(t);
    } catch {
      return []; // refused by validateText: skipped below as well
    }
  };
  const corpusIdf = CorpusIdf.fit(pairs.flatMap((p) => [tokensOf(p.a), tokensOf(p.b)]));
  const withCorpusIdf = await createFingerprinter({ idf: corpusIdf });
  let jaccardMs = 0;
  // The original design alone: word TF-IDF features only, no short-text bigrams.
  const plain = await createFingerprinter({ shortTextLength: 0 });

  const rows: Row[] = [];
  const lshKeysA: string[][][] = LSH_VARIANTS.map(() => []);
  const lshKeysB: string[][][] = LSH_VARIANTS.map(() => []);
  const peerLines: string[] = [];
  let analyzeMs = 0;
  let analyzed = 0;
  let compareMs = 0;
  let skipped = 0;
  for (const pair of pairs) {
    const t0 = performance.now();
    const both = analyzePair(fp, pair);
    if (!both) {
      skipped++; // empty after normalization
      continue;
    }
    analyzeMs += performance.now() - t0;
    analyzed += 2;
    const [a, b] = both;
    const t1 = performance.now();
    const v = fp.compare(a, b);
    const pairMs = performance.now() - t1;
    compareMs += pairMs;
    const t2 = performance.now();
    const jac3 = trigramJaccard(a.normalized, b.normalized);
    jaccardMs += performance.now() - t2;
    const corpusVerdict = withCorpusIdf.compare(withCorpusIdf.analyze(pair.a), withCorpusIdf.analyze(pair.b)).duplicate;
    const pa = plain.analyze(pair.a);
    const pb = plain.analyze(pair.b);
    const minLength = Math.min(a.length, b.length);
    const lsh = LSH_VARIANTS.map((variant, k) => {
      const ka = k === 0 ? a.lsh : lshKeys(a.normalized, variant);
      const kb = k === 0 ? b.lsh : lshKeys(b.normalized, variant);
      if (k === 0 && ka.join() !== lshKeys(a.normalized, variant).join()) throw new Error("LSH_VARIANTS[0] is not the default of Analysis.lsh");
      if (pair.tier !== "heavy") {
        lshKeysA[k]!.push(ka);
        lshKeysB[k]!.push(kb);
      }
      // The default as the service looks up: the incoming text's lookup keys (its own and the lookup-only block keys) against a's stored keys.
      return k === 0 ? lookupKeysOf(b).some((x) => ka.includes(x)) : ka.some((x) => kb.includes(x));
    });
    rows.push({
      pair,
      label: pair.label,
      minLength,
      distance: v.distance,
      cosine: v.cosine,
      edit: v.editSimilarity ?? editSimilarity(a.normalized, b.normalized),
      plainDistance: hamming(pa.simhash, pb.simhash),
      verdict: v.duplicate,
      rule: v.rule,
      radius: fp.searchRadius(b.length),
      oldRadius: oldRadius(b.length),
      lsh,
      compareMs: pairMs,
      jac3,
      corpusVerdict,
    });
    const words = (t: string): string[] => fp.tokenize(t).filter((w) => !fp.stopWords.has(w));
    peerLines.push(
      JSON.stringify({ id: pair.id, a: pair.a, b: pair.b, ta: words(pair.a), tb: words(pair.b), fa: [...a.features], fb: [...b.features] }),
    );
  }
  writeFileSync(join(OUT_DIR, "peer-input.jsonl"), peerLines.join("\n") + "\n");

  const python = join(import.meta.dirname, ".venv", "bin", "python");
  let peers: PeerOutput | null = null;
  if (existsSync(python)) {
    const r = spawnSync(python, [join(import.meta.dirname, "peers.py")], { stdio: ["ignore", "inherit", "inherit"] });
    if (r.status === 0) peers = JSON.parse(readFileSync(join(OUT_DIR, "peer-output.json"), "utf8")) as PeerOutput;
    else console.error(`peers.py failed (exit ${r.status}); Python peers left out`);
  } else console.error(`no ${python}: Python peers left out (see docs/quality.md)`);

  // Heavy edits are reported apart (recall only); everything else is scored.
  const scored = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.pair.tier !== "heavy");
  const labels = scored.map(({ r }) => r.label);
  const cosineCurve = curve(scored.map(({ r }) => r.cosine), labels, range(0.3, 0.99, 0.01), true);
  const cosineBest = best(cosineCurve);
  const jaccardBest = best(curve(scored.map(({ r }) => r.jac3), labels, range(0.2, 0.95, 0.01), true));

  const methods: Method[] = [
    { name: "neardup (defaults, pairwise verdict)", decide: (r) => r.verdict },
    { name: "neardup (defaults, end to end: within the search radius or sharing an LSH key)", decide: found },
    { name: "neardup end to end, simhash only at the radii before lsh1 (11/11/7/3)", decide: (r) => r.verdict && r.distance <= r.oldRadius },
    { name: "neardup end to end, LSH char4 16x3 + word and block keys + radii 11/11/7/3", decide: (r) => r.verdict && (r.distance <= r.oldRadius || r.lsh[0]!) },
    ...LSH_VARIANTS.slice(1).map((v, k) => ({
      name: `neardup end to end, LSH ${v.name} + radius 3`,
      decide: (r: Row) => r.verdict && (r.distance <= 3 || r.lsh[k + 1]!),
    })),
    { name: "neardup defaults with corpus IDF (fit on the pair set's texts), pairwise", decide: (r) => r.corpusVerdict },
    { name: `char 3-gram Jaccard >= ${jaccardBest.threshold} (brute force, best threshold)`, decide: (r) => r.jac3 >= jaccardBest.threshold },
    { name: `TF-IDF cosine >= ${cosineBest.threshold} (oracle ceiling)`, decide: (r) => r.cosine >= cosineBest.threshold },
    { name: "plain simhash, distance <= 3", decide: (r) => r.plainDistance <= 3 },
  ];
  let lshBest: { t: string; f1: number } | null = null;
  if (peers) {
    const out = peers;
    for (const [t, hits] of Object.entries(out.lsh)) {
      const f1 = score(scored.map(({ i }) => hits[i] ?? false), labels).f1;
      if (lshBest === null || f1 > lshBest.f1) lshBest = { t, f1 };
    }
    const t = (lshBest as { t: string }).t;
    methods.push(
      { name: `datasketch MinHashLSH (threshold ${t}, best of grid)`, decide: (_r, i) => out.lsh[t]?.[i] ?? false },
      { name: "PyPI simhash SimhashIndex k=3 (core features)", decide: (_r, i) => out.simhash_py.index_k3[i] ?? false },
      { name: "PyPI simhash SimhashIndex k=3 (own features)", decide: (_r, i) => out.simhash_py_text.index_k3[i] ?? false },
    );
  }

  const results: MethodResult[] = methods.map((m) => {
    const perBucket = {} as Record<Bucket, Scores>;
    for (const bucket of BUCKETS) {
      const sel = scored.filter(({ r }) => r.pair.bucket === bucket);
      perBucket[bucket] = score(sel.map(({ r, i }) => m.decide(r, i)), sel.map(({ r }) => r.label));
    }
    const heavy = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.pair.tier === "heavy");
    const hard = scored.filter(({ r }) => HARD_NEGATIVE_TIERS.includes(r.pair.tier));
    const held = scored.filter(({ r }) => r.pair.id % 2 === 1);
    const heldPerBucket = {} as Record<Bucket, Scores>;
    for (const bucket of BUCKETS) {
      const sel = held.filter(({ r }) => r.pair.bucket === bucket);
      heldPerBucket[bucket] = score(sel.map(({ r, i }) => m.decide(r, i)), sel.map(({ r }) => r.label));
    }
    return {
      name: m.name,
      overall: score(scored.map(({ r, i }) => m.decide(r, i)), labels),
      perBucket,
      heavyRecall: heavy.filter(({ r, i }) => m.decide(r, i)).length / Math.max(1, heavy.length),
      hardNegativeFpRate: hard.filter(({ r, i }) => m.decide(r, i)).length / Math.max(1, hard.length),
      heldOut: score(held.map(({ r, i }) => m.decide(r, i)), held.map(({ r }) => r.label)),
      heldOutPerBucket: heldPerBucket,
    };
  });

  // Calibration: tune on even pair ids, report on odd ids (held out).
  const bounds: [string, number][] = [["<50", 50], ["50-200", 200], ["200-1000", 1000], [">=1000", Infinity]];
  const calibrated: VerdictOptions = { buckets: [] };
  let lo = 0;
  const tuned: { bucket: string; rules: Rules; tuneF1: number }[] = [];
  for (const [name, hi] of bounds) {
    const sel = scored.filter(({ r }) => r.minLength >= lo && r.minLength < hi && r.pair.id % 2 === 0).map(({ r }) => r);
    const { rules, f1 } = bestRules(sel);
    tuned.push({ bucket: name, rules, tuneF1: f1 });
    const radius = Math.max(3, rules.maxDistance ?? 0, fp.searchRadius(lo));
    calibrated.buckets.push({ name, maxLength: hi, searchRadius: radius, ...rules });
    lo = hi;
  }
  const heldOut = scored.filter(({ r }) => r.pair.id % 2 === 1);
  const heldDefaults = score(heldOut.map(({ r }) => r.verdict), heldOut.map(({ r }) => r.label));
  const heldTuned = score(heldOut.map(({ r }) => applies(bucketRules(calibrated, r.minLength), r)), heldOut.map(({ r }) => r.label));
  const heldTunedPerBucket = Object.fromEntries(
    BUCKETS.map((bucket) => {
      const sel = heldOut.filter(({ r }) => r.pair.bucket === bucket);
      return [bucket, score(sel.map(({ r }) => applies(bucketRules(calibrated, r.minLength), r)), sel.map(({ r }) => r.label))];
    }),
  );

  const perBucketOf = (sel: typeof scored, decideRow: (r: Row) => boolean): Record<string, Scores> =>
    Object.fromEntries(BUCKETS.map((bucket) => {
      const inBucket = sel.filter(({ r }) => r.pair.bucket === bucket);
      return [bucket, score(inBucket.map(({ r }) => decideRow(r)), inBucket.map(({ r }) => r.label))];
    }));
  const heldDefaultsPerBucket = perBucketOf(heldOut, (r) => r.verdict);
  const heldEndToEndPerBucket = perBucketOf(heldOut, found);
  const heldEndToEnd = score(heldOut.map(({ r }) => found(r)), heldOut.map(({ r }) => r.label));
  const tuneHalf = scored.filter(({ r }) => r.pair.id % 2 === 0);
  const lshTable = LSH_VARIANTS.map((v, k) => {
    const decideRow = (r: Row): boolean => r.verdict && (r.distance <= 3 || r.lsh[k]!);
    return {
      name: v.name,
      keysPerDoc: v.bands,
      permutations: v.bands * v.rows,
      hitsPerMillion: lshHitsPerMillion(lshKeysA[k]!, lshKeysB[k]!),
      tunePerBucket: perBucketOf(tuneHalf, decideRow),
      heldOutPerBucket: perBucketOf(heldOut, decideRow),
      heldOut: score(heldOut.map(({ r }) => decideRow(r)), heldOut.map(({ r }) => r.label)),
    };
  });
  const defaultsVsTuned = tuned.map((t, k) => {
    const lower = k === 0 ? 0 : (bounds[k - 1] as [string, number])[1];
    const d = bucketFor(fp.verdictOptions, lower);
    const keys = ["maxDistance", "minCosine", "minEditSimilarity"] as const;
    const differs = keys.filter((key) => d[key] !== t.rules[key]).map((key) => `${key} ${d[key]} vs tuned ${t.rules[key]}`);
    return { bucket: t.bucket, defaults: `${d.name}: distance ${d.maxDistance} cosine ${d.minCosine} edit ${d.minEditSimilarity}`, differs };
  });
  const radii = radiusTable(scored.map(({ r }) => r), fp.verdictOptions);

  const curves = curvesPerBucket(scored.map(({ r }) => r), peers, scored.map(({ i }) => i));
  const byEdit = recallByEdit(rows);
  const byKindLow = recallByKindAtLowStrength(rows);
  const hardByTier = Object.fromEntries(
    [...HARD_NEGATIVE_TIERS, "neg-template", "neg-random"].map((tier) => {
      const sel = rows.filter((r) => r.pair.tier === tier);
      return [tier, { n: sel.length, neardup: sel.filter((r) => r.verdict).length / Math.max(1, sel.length), jaccard: sel.filter((r) => r.jac3 >= jaccardBest.threshold).length / Math.max(1, sel.length) }];
    }),
  );
  const timing = {
    neardupAnalyzeMsPerDoc: analyzeMs / analyzed,
    neardupCompareMsPerPair: compareMs / rows.length,
    jaccardMsPerPair: jaccardMs / rows.length,
    neardupCompareMsPerPairByBucket: Object.fromEntries(
      BUCKETS.map((bucket) => {
        const sel = rows.filter((r) => r.pair.bucket === bucket);
        return [bucket, sel.reduce((t, r) => t + r.compareMs, 0) / Math.max(1, sel.length)];
      }),
    ),
    peersSecondsPerDoc: peers?.seconds_per_doc ?? null,
  };
  const report = {
    seed,
    pairs: pairs.length,
    skipped,
    scoredPairs: scored.length,
    counts: countBy(rows.map((r) => `${r.pair.lang} ${r.pair.bucket} ${r.pair.tier}`)),
    results,
    cosineBest,
    lshBest,
    tuned,
    heldOut: {
      defaults: heldDefaults,
      defaultsPerBucket: heldDefaultsPerBucket,
      endToEnd: heldEndToEnd,
      endToEndPerBucket: heldEndToEndPerBucket,
      tuned: heldTuned,
      tunedPerBucket: heldTunedPerBucket,
    },
    defaultsVsTuned,
    radii,
    lshTable,
    curves,
    byEdit,
    byKindLow,
    hardByTier,
    jaccardBest,
    rulesFired: countBy(rows.filter((r) => r.rule !== null).map((r) => r.rule as string)),
    timing,
  };
  writeFileSync(join(OUT_DIR, "results.json"), JSON.stringify(report, null, 1));
  printReport(report);
}

interface PeerOutput {
  n: number;
  minhash: { jaccard: number[] };
  lsh: Record<string, boolean[]>;
  simhash_py: { distance: number[]; index_k3: boolean[] };
  simhash_py_text: { distance: number[]; index_k3: boolean[] };
  seconds_per_doc: Record<string, number>;
}

interface Method {
  name: string;
  decide: (r: Row, index: number) => boolean;
}

interface MethodResult {
  name: string;
  overall: Scores;
  perBucket: Record<Bucket, Scores>;
  heavyRecall: number;
  /** Share of hard negatives (HARD_NEGATIVE_TIERS) flagged as duplicates. */
  hardNegativeFpRate: number;
  /** Odd pair ids only (the defaults were chosen on even ids). */
  heldOut: Scores;
  heldOutPerBucket: Record<Bucket, Scores>;
}

/** End to end as the service finds candidates: within b's search radius, or sharing an lsh1 band key. */
function found(r: Row): boolean {
  return r.verdict && (r.distance <= r.radius || r.lsh[0]!);
}

function bucketRules(o: VerdictOptions, length: number): Rules {
  return o.buckets.find((b) => length < b.maxLength) ?? (o.buckets[o.buckets.length - 1] as Rules);
}

function countBy(keys: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

/** Threshold curves per bucket for each real-valued score. */
function curvesPerBucket(rows: Row[], peers: PeerOutput | null, index: number[]): Record<string, Record<string, CurvePoint[]>> {
  const out: Record<string, Record<string, CurvePoint[]>> = {};
  for (const bucket of ["all", ...BUCKETS]) {
    const sel = rows.map((r, k) => ({ r, i: index[k] as number })).filter(({ r }) => bucket === "all" || r.pair.bucket === bucket);
    const labels = sel.map(({ r }) => r.label);
    const c: Record<string, CurvePoint[]> = {
      "tfidf cosine": curve(sel.map(({ r }) => r.cosine), labels, range(0.3, 1, 0.05), true),
      "edit similarity": curve(sel.map(({ r }) => r.edit), labels, range(0.3, 1, 0.05), true),
      "char 3-gram jaccard": curve(sel.map(({ r }) => r.jac3), labels, range(0.3, 1, 0.05), true),
      "neardup simhash distance": curve(sel.map(({ r }) => r.distance), labels, range(0, 20, 1), false),
      "plain simhash distance": curve(sel.map(({ r }) => r.plainDistance), labels, range(0, 20, 1), false),
    };
    if (peers) {
      c["minhash jaccard"] = curve(sel.map(({ i }) => peers.minhash.jaccard[i] ?? 0), labels, range(0.3, 1, 0.05), true);
      c["simhash-py distance (core features)"] = curve(sel.map(({ i }) => peers.simhash_py.distance[i] ?? 64), labels, range(0, 20, 1), false);
    }
    out[bucket] = c;
  }
  return out;
}

/** Recall per edit kind at strengths 1-2 pooled (the issue 14 goal), pairwise and end to end. */
function recallByKindAtLowStrength(rows: Row[]): Record<string, { n: number; recall: number; endToEnd: number }> {
  const out: Record<string, { n: number; hit: number; found: number }> = {};
  for (const r of rows) {
    const [kind, strength] = r.pair.edit.split(":");
    if (r.pair.tier !== "gen" || (strength !== "1" && strength !== "2")) continue;
    const e = (out[kind!] ??= { n: 0, hit: 0, found: 0 });
    e.n++;
    if (r.verdict) e.hit++;
    if (found(r)) e.found++;
  }
  return Object.fromEntries(Object.entries(out).sort().map(([k, v]) => [k, { n: v.n, recall: v.hit / v.n, endToEnd: v.found / v.n }]));
}

function recallByEdit(rows: Row[]): Record<string, { n: number; recall: number; endToEnd: number }> {
  const out: Record<string, { n: number; hit: number; found: number }> = {};
  for (const r of rows) {
    if (r.label !== 1) continue;
    const key = r.pair.tier === "natural" ? `natural ${r.pair.edit}` : r.pair.edit;
    const e = (out[key] ??= { n: 0, hit: 0, found: 0 });
    e.n++;
    if (r.verdict) e.hit++;
    if (found(r)) e.found++;
  }
  return Object.fromEntries(Object.entries(out).sort().map(([k, v]) => [k, { n: v.n, recall: v.hit / v.n, endToEnd: v.found / v.n }]));
}

/** Segment values looked up per search at `radius`: four segments, each with every value within floor(radius / 4) bits. */
function probedValues(radius: number): number {
  const k = segmentRadius(radius);
  let perSegment = 0;
  let c = 1;
  for (let i = 0; i <= k; i++) {
    perSegment += c; // C(16, i)
    c = (c * (16 - i)) / (i + 1);
  }
  return 4 * perSegment;
}

const RADII = [3, 7, 11, 15, 19] as const;

/**
 * Retrieval at other radii: per bucket (of b, the incoming text), the share of
 * near-duplicates within each radius, the end-to-end F1 with the default
 * verdict at that radius, and the lookup cost (segment values probed; expected
 * segment hits per search per million stored uniform fingerprints).
 */
function radiusTable(rows: Row[], options: VerdictOptions): {
  radius: number;
  probes: number;
  hitsPerMillion: number;
  perBucket: Record<string, { default: number; withinRadius: number; endToEndF1: number; withLshF1: number }>;
}[] {
  return RADII.map((radius) => {
    const perBucket: Record<string, { default: number; withinRadius: number; endToEndF1: number; withLshF1: number }> = {};
    for (const bucket of BUCKETS) {
      const sel = rows.filter((r) => r.pair.bucket === bucket);
      const pos = sel.filter((r) => r.label === 1);
      perBucket[bucket] = {
        default: bucketFor(options, bucketLower(bucket)).searchRadius,
        withinRadius: pos.filter((r) => r.distance <= radius).length / Math.max(1, pos.length),
        endToEndF1: score(sel.map((r) => r.verdict && r.distance <= radius), sel.map((r) => r.label)).f1,
        withLshF1: score(sel.map((r) => r.verdict && (r.distance <= radius || r.lsh[0]!)), sel.map((r) => r.label)).f1,
      };
    }
    const probes = probedValues(radius);
    return { radius, probes, hitsPerMillion: (1e6 * probes) / 65536, perBucket };
  });
}

function bucketLower(bucket: Bucket): number {
  return { "<50": 0, "50-200": 50, "200-1000": 200, ">1000": 1000 }[bucket];
}

function printReport(report: {
  pairs: number;
  scoredPairs: number;
  skipped: number;
  results: MethodResult[];
  tuned: { bucket: string; rules: Rules; tuneF1: number }[];
  heldOut: {
    defaults: Scores;
    defaultsPerBucket: Record<string, Scores>;
    endToEnd: Scores;
    endToEndPerBucket: Record<string, Scores>;
    tuned: Scores;
    tunedPerBucket: Record<string, Scores>;
  };
  defaultsVsTuned: { bucket: string; defaults: string; differs: string[] }[];
  radii: ReturnType<typeof radiusTable>;
  lshTable: {
    name: string;
    keysPerDoc: number;
    permutations: number;
    hitsPerMillion: number;
    tunePerBucket: Record<string, Scores>;
    heldOutPerBucket: Record<string, Scores>;
    heldOut: Scores;
  }[];
  byEdit: Record<string, { n: number; recall: number; endToEnd: number }>;
  byKindLow: Record<string, { n: number; recall: number; endToEnd: number }>;
  hardByTier: Record<string, { n: number; neardup: number; jaccard: number }>;
  jaccardBest: CurvePoint;
  rulesFired: Record<string, number>;
  timing: {
    neardupAnalyzeMsPerDoc: number;
    neardupCompareMsPerPair: number;
    jaccardMsPerPair: number;
    neardupCompareMsPerPairByBucket: Record<string, number>;
    peersSecondsPerDoc: Record<string, number> | null;
  };
}): void {
  console.log(`\n${report.pairs} pairs (${report.scoredPairs} scored, heavy edits apart; ${report.skipped} skipped: empty after normalization)\n`);
  const head = ["method", ...BUCKETS.map((b) => `F1 ${b}`), "P", "R", "F1", "heavy R", "hard-neg FP"];
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  for (const r of report.results) {
    const cells = [r.name, ...BUCKETS.map((b) => pct(r.perBucket[b].f1)), pct(r.overall.precision), pct(r.overall.recall), pct(r.overall.f1), pct(r.heavyRecall), pct(r.hardNegativeFpRate)];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log("\nheld out (odd pair ids): F1 per bucket and overall, P / R");
  const head2 = ["method", ...BUCKETS.map((b) => `F1 ${b}`), "P", "R", "F1"];
  console.log(`| ${head2.join(" | ")} |`);
  console.log(`|${head2.map(() => "---").join("|")}|`);
  for (const r of report.results) {
    const cells = [r.name, ...BUCKETS.map((b) => pct(r.heldOutPerBucket[b].f1)), pct(r.heldOut.precision), pct(r.heldOut.recall), pct(r.heldOut.f1)];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log("\nneardup defaults, per bucket: P / R / F1, pairwise verdict | end to end (b within its bucket's search radius of a, or sharing an LSH key)");
  const nd = report.results[0] as MethodResult;
  const e2e = report.results[1] as MethodResult;
  const prf = (s: Scores): string => `${pct(s.precision)} / ${pct(s.recall)} / ${pct(s.f1)}`;
  for (const b of BUCKETS) console.log(`  ${b.padEnd(9)} ${prf(nd.perBucket[b])} | ${prf(e2e.perBucket[b])}`);
  console.log("\ncalibrated rules (tuned on even ids, by shorter normalized length):");
  for (const t of report.tuned) {
    console.log(`  ${t.bucket.padEnd(9)} maxDistance ${t.rules.maxDistance} minCosine ${t.rules.minCosine} minEdit ${t.rules.minEditSimilarity} (tune F1 ${pct(t.tuneF1)})`);
  }
  const h = report.heldOut;
  for (const d of report.defaultsVsTuned) console.log(`  ${d.bucket.padEnd(9)} defaults ${d.defaults}${d.differs.length === 0 ? " (same)" : ` (differs: ${d.differs.join(", ")})`}`);
  const f1s = (m: Record<string, Scores>): string => Object.entries(m).map(([b, s]) => `${b} ${pct(s.f1)}`).join(", ");
  console.log(`held-out (odd ids): defaults F1 ${pct(h.defaults.f1)}, calibrated F1 ${pct(h.tuned.f1)}, defaults end to end F1 ${pct(h.endToEnd.f1)}`);
  console.log(`  defaults per bucket F1:            ${f1s(h.defaultsPerBucket)}`);
  console.log(`  defaults end to end per bucket F1: ${f1s(h.endToEndPerBucket)}`);
  console.log(`  calibrated per bucket F1:          ${f1s(h.tunedPerBucket)}`);
  console.log("\nretrieval by search radius (bucket of b): share of near-duplicates within it / end-to-end F1 at the default verdict, simhash only / with LSH keys");
  console.log(`| radius | values probed | segment hits per search per 1M docs | ${BUCKETS.join(" | ")} |`);
  console.log(`|---|---|---|${BUCKETS.map(() => "---").join("|")}|`);
  for (const r of report.radii) {
    const cells = BUCKETS.map((b) => {
      const x = r.perBucket[b] as { default: number; withinRadius: number; endToEndF1: number; withLshF1: number };
      return `${pct(x.withinRadius)} / ${pct(x.endToEndF1)} / ${pct(x.withLshF1)}${x.default === r.radius ? " (default)" : ""}`;
    });
    console.log(`| ${r.radius} | ${r.probes} | ${Math.round(r.hitsPerMillion)} | ${cells.join(" | ")} |`);
  }
  console.log("\nLSH keys (char k-grams, bands x rows) with search radius 3: F1 on the tuning half (even ids) | held out (odd ids), per bucket");
  console.log(`| shingles, bands x rows | keys/doc | permutations | LSH hits/lookup/1M docs | tune ${BUCKETS.join(" / ")} | held out ${BUCKETS.join(" / ")} | held out all |`);
  console.log("|---|---|---|---|---|---|---|");
  for (const l of report.lshTable) {
    const f1Of = (m: Record<string, Scores>): string => BUCKETS.map((b) => pct((m[b] as Scores).f1)).join(" / ");
    console.log(`| ${l.name} | ${l.keysPerDoc} | ${l.permutations} | ${Math.round(l.hitsPerMillion)} | ${f1Of(l.tunePerBucket)} | ${f1Of(l.heldOutPerBucket)} | ${pct(l.heldOut.f1)} |`);
  }
  console.log(`\nrules that fired at the defaults (all pairs): ${Object.entries(report.rulesFired).sort().map(([k, n]) => `${k} ${n}`).join(", ")}`);
  console.log("\nneardup recall by edit (defaults): pairwise / end to end");
  for (const [k, v] of Object.entries(report.byEdit)) console.log(`  ${k.padEnd(32)} n=${String(v.n).padStart(4)} recall ${pct(v.recall)} / ${pct(v.endToEnd)}`);
  console.log("\nrecall by edit kind at strengths 1-2 (pooled): pairwise / end to end");
  for (const [k, v] of Object.entries(report.byKindLow)) console.log(`  ${k.padEnd(18)} n=${String(v.n).padStart(4)} recall ${pct(v.recall)} / ${pct(v.endToEnd)}`);
  console.log(`\nflagged as duplicates, per negative tier: neardup pairwise / char 3-gram Jaccard >= ${report.jaccardBest.threshold}`);
  for (const [k, v] of Object.entries(report.hardByTier)) console.log(`  ${k.padEnd(18)} n=${String(v.n).padStart(4)} ${pct(v.neardup)} / ${pct(v.jaccard)}`);
  const t = report.timing;
  console.log(`\ntime: neardup analyze ${t.neardupAnalyzeMsPerDoc.toFixed(3)} ms/doc, compare ${t.neardupCompareMsPerPair.toFixed(3)} ms/pair; char 3-gram Jaccard ${t.jaccardMsPerPair.toFixed(3)} ms/pair`);
  console.log(`  compare ms/pair by bucket: ${Object.entries(t.neardupCompareMsPerPairByBucket).map(([b, ms]) => `${b} ${ms.toFixed(3)}`).join(", ")}`);
  if (t.peersSecondsPerDoc) {
    for (const [k, v] of Object.entries(t.peersSecondsPerDoc)) console.log(`  ${k.padEnd(24)} ${(v * 1000).toFixed(3)} ms/doc`);
  }
}

await main();
