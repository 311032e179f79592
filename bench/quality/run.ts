/**
 * Quality benchmark (issue 6): neardup's verdict at its defaults against peers
 * on the same labelled pairs of real text. Usage:
 *
 *   npm run bench:quality            # build pairs, score, run Python peers, print the table
 *   npm run bench:quality -- --seed 7
 *
 * Writes bench/out/quality/{pairs.jsonl,peer-input.jsonl,peer-output.json,results.json}.
 * Python peers need bench/quality/.venv (see docs/quality.md); without it the
 * Python columns are left out and said so.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createFingerprinter, editSimilarity, hamming } from "../../src/core/index.js";
import type { Analysis, VerdictOptions } from "../../src/core/index.js";
import { OUT_DIR, writeDataset } from "./build-dataset.js";
import { BUCKETS } from "./dataset.js";
import type { Bucket, Pair } from "./dataset.js";
import { applies, bestRules } from "./calibrate.js";
import type { Measured, Rules } from "./calibrate.js";
import { best, curve, range, score } from "./metrics.js";
import type { CurvePoint, Scores } from "./metrics.js";

interface Row extends Measured {
  pair: Pair;
  plainDistance: number;
  verdict: boolean;
  radius: number;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const pct = (x: number): string => x.toFixed(3);

async function main(): Promise<void> {
  const seed = Number(arg("seed", "20260601"));
  const { pairs } = writeDataset(seed);
  const fp = await createFingerprinter();
  // The original design alone: word TF-IDF features only, no short-text bigrams.
  const plain = await createFingerprinter({ shortTextLength: 0 });

  const rows: Row[] = [];
  const peerLines: string[] = [];
  let analyzeMs = 0;
  let analyzed = 0;
  let compareMs = 0;
  let skipped = 0;
  for (const pair of pairs) {
    let a: Analysis;
    let b: Analysis;
    try {
      const t0 = performance.now();
      a = fp.analyze(pair.a);
      b = fp.analyze(pair.b);
      analyzeMs += performance.now() - t0;
      analyzed += 2;
    } catch {
      skipped++; // empty after normalization
      continue;
    }
    const t1 = performance.now();
    const v = fp.compare(a, b);
    compareMs += performance.now() - t1;
    const pa = plain.analyze(pair.a);
    const pb = plain.analyze(pair.b);
    const minLength = Math.min(a.length, b.length);
    rows.push({
      pair,
      label: pair.label,
      minLength,
      distance: v.distance,
      cosine: v.cosine,
      edit: v.editSimilarity ?? editSimilarity(a.normalized, b.normalized),
      plainDistance: hamming(pa.simhash, pb.simhash),
      verdict: v.duplicate,
      radius: fp.searchRadius(minLength),
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

  const methods: Method[] = [
    { name: "neardup (defaults, pairwise verdict)", decide: (r) => r.verdict },
    { name: "neardup (defaults, within search radius)", decide: (r) => r.verdict && r.distance <= r.radius },
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
    return {
      name: m.name,
      overall: score(scored.map(({ r, i }) => m.decide(r, i)), labels),
      perBucket,
      heavyRecall: heavy.filter(({ r, i }) => m.decide(r, i)).length / Math.max(1, heavy.length),
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

  const curves = curvesPerBucket(scored.map(({ r }) => r), peers, scored.map(({ i }) => i));
  const byEdit = recallByEdit(rows);
  const timing = {
    neardupAnalyzeMsPerDoc: analyzeMs / analyzed,
    neardupCompareMsPerPair: compareMs / rows.length,
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
    heldOut: { defaults: heldDefaults, tuned: heldTuned, tunedPerBucket: heldTunedPerBucket },
    curves,
    byEdit,
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

function recallByEdit(rows: Row[]): Record<string, { n: number; recall: number }> {
  const out: Record<string, { n: number; hit: number }> = {};
  for (const r of rows) {
    if (r.label !== 1) continue;
    const key = r.pair.tier === "natural" ? `natural ${r.pair.edit}` : r.pair.edit;
    const e = (out[key] ??= { n: 0, hit: 0 });
    e.n++;
    if (r.verdict) e.hit++;
  }
  return Object.fromEntries(Object.entries(out).sort().map(([k, v]) => [k, { n: v.n, recall: v.hit / v.n }]));
}

function printReport(report: {
  pairs: number;
  scoredPairs: number;
  skipped: number;
  results: MethodResult[];
  tuned: { bucket: string; rules: Rules; tuneF1: number }[];
  heldOut: { defaults: Scores; tuned: Scores; tunedPerBucket: Record<string, Scores> };
  byEdit: Record<string, { n: number; recall: number }>;
  timing: { neardupAnalyzeMsPerDoc: number; neardupCompareMsPerPair: number; peersSecondsPerDoc: Record<string, number> | null };
}): void {
  console.log(`\n${report.pairs} pairs (${report.scoredPairs} scored, heavy edits apart; ${report.skipped} skipped: empty after normalization)\n`);
  const head = ["method", ...BUCKETS.map((b) => `F1 ${b}`), "P", "R", "F1", "heavy R"];
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  for (const r of report.results) {
    const cells = [r.name, ...BUCKETS.map((b) => pct(r.perBucket[b].f1)), pct(r.overall.precision), pct(r.overall.recall), pct(r.overall.f1), pct(r.heavyRecall)];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log("\nneardup defaults, per bucket: P / R / F1");
  const nd = report.results[0] as MethodResult;
  for (const b of BUCKETS) console.log(`  ${b.padEnd(9)} ${pct(nd.perBucket[b].precision)} / ${pct(nd.perBucket[b].recall)} / ${pct(nd.perBucket[b].f1)}`);
  console.log("\ncalibrated rules (tuned on even ids, by shorter normalized length):");
  for (const t of report.tuned) {
    console.log(`  ${t.bucket.padEnd(9)} maxDistance ${t.rules.maxDistance} minCosine ${t.rules.minCosine} minEdit ${t.rules.minEditSimilarity} (tune F1 ${pct(t.tuneF1)})`);
  }
  const h = report.heldOut;
  console.log(`held-out (odd ids): defaults F1 ${pct(h.defaults.f1)}, calibrated F1 ${pct(h.tuned.f1)}`);
  console.log(`  calibrated per bucket F1: ${Object.entries(h.tunedPerBucket).map(([b, s]) => `${b} ${pct(s.f1)}`).join(", ")}`);
  console.log("\nneardup recall by edit (defaults):");
  for (const [k, v] of Object.entries(report.byEdit)) console.log(`  ${k.padEnd(32)} n=${String(v.n).padStart(4)} recall ${pct(v.recall)}`);
  const t = report.timing;
  console.log(`\ntime: neardup analyze ${t.neardupAnalyzeMsPerDoc.toFixed(3)} ms/doc, compare ${t.neardupCompareMsPerPair.toFixed(3)} ms/pair`);
  if (t.peersSecondsPerDoc) {
    for (const [k, v] of Object.entries(t.peersSecondsPerDoc)) console.log(`  ${k.padEnd(24)} ${(v * 1000).toFixed(3)} ms/doc`);
  }
}

await main();
