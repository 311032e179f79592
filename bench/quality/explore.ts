/**
 * The issue 14 ideas, measured on the TUNING half (even pair ids) of the
 * quality pairs, each on top of the issue 6 rules (the defaults before issue
 * 14): which one keeps texts that share only an opening or a closing apart
 * without losing the edited copies. Usage:
 *
 *   npx tsx bench/quality/explore.ts [--scale 1]
 *
 * Prints one row per idea (F1 overall and per bucket, hard-negative false
 * positive rate, lowest recall of an edit kind at strengths 1-2) and writes the
 * per-pair measures to bench/out/quality/explore.json for further rule search.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CorpusIdf,
  createFingerprinter,
  differingMiddle,
  editSimilarity,
  trigramJaccard,
  trigramSet,
  windowCoverage,
} from "../../src/core/index.js";
import type { Fingerprinter } from "../../src/core/index.js";
import { OUT_DIR, writeDataset } from "./build-dataset.js";
import { BUCKETS, DEFAULT_SIZES, HARD_NEGATIVE_TIERS, scaledSizes } from "./dataset.js";
import type { Pair } from "./dataset.js";
import { ISSUE6_VERDICT } from "./explore-rules.js";
import { score } from "./metrics.js";

interface Row {
  pair: Pair;
  old: boolean;
  oldCorpusIdf: boolean;
  now: boolean;
  share: number;
  middleLength: number;
  middleSimilarity: number;
  coverage: number;
  containment: number;
  jac3: number;
  edit: number;
  cosine: number;
  distance: number;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

function safe(fp: Fingerprinter, text: string): ReturnType<Fingerprinter["analyze"]> | null {
  try {
    return fp.analyze(text);
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const scale = Number(arg("scale", "1"));
  const { pairs } = writeDataset(20260601, scale === 1 ? DEFAULT_SIZES : scaledSizes(scale));
  const fp = await createFingerprinter();
  const old = await createFingerprinter({ verdict: ISSUE6_VERDICT });
  const tokens = (t: string): string[] => (safe(fp, t) === null ? [] : fp.tokenize(t));
  const corpus = await createFingerprinter({ verdict: ISSUE6_VERDICT, idf: CorpusIdf.fit(pairs.flatMap((p) => [tokens(p.a), tokens(p.b)])) });
  const rows: Row[] = [];
  for (const pair of pairs) {
    if (pair.tier === "heavy" || pair.id % 2 === 1) continue; // tuning half only
    const a = safe(fp, pair.a);
    const b = safe(fp, pair.b);
    if (a === null || b === null) continue;
    const v = old.compare(a, b);
    const m = differingMiddle(a.normalized, b.normalized);
    const sa = trigramSet(a.normalized);
    const sb = trigramSet(b.normalized);
    let inter = 0;
    for (const g of sa) if (sb.has(g)) inter++;
    rows.push({
      pair,
      old: v.duplicate,
      oldCorpusIdf: corpus.compare(corpus.analyze(pair.a), corpus.analyze(pair.b)).duplicate,
      now: fp.compare(a, b).duplicate,
      share: m.share,
      middleLength: Math.min(m.middleA, m.middleB),
      middleSimilarity: m.similarity,
      coverage: Math.max(windowCoverage(a.normalized, sb), windowCoverage(b.normalized, sa)),
      containment: Math.min(inter / Math.max(1, sa.size), inter / Math.max(1, sb.size)),
      jac3: trigramJaccard(a.normalized, b.normalized),
      edit: v.editSimilarity ?? editSimilarity(a.normalized, b.normalized),
      cosine: v.cosine,
      distance: v.distance,
    });
  }
  writeFileSync(join(OUT_DIR, "explore.json"), JSON.stringify(rows.map(({ pair, ...r }) => ({ id: pair.id, label: pair.label, tier: pair.tier, kind: pair.edit, bucket: pair.bucket, lang: pair.lang, ...r }))));

  const ideas: [string, (r: Row) => boolean][] = [
    ["issue 6 rules (before)", (r) => r.old],
    ["+ corpus IDF (fit on the pair texts)", (r) => r.oldCorpusIdf],
    ["+ window coverage: max of both ways >= 0.8", (r) => r.old && r.coverage >= 0.8],
    ["+ window coverage: max of both ways >= 0.9", (r) => r.old && r.coverage >= 0.9],
    ["+ 3-gram containment both ways >= 0.5", (r) => r.old && r.containment >= 0.5],
    ["+ 3-gram containment both ways >= 0.6", (r) => r.old && r.containment >= 0.6],
    ["+ shared-prefix/suffix veto (middle >= 10% and 8 units, middle Jaccard < 0.3)", (r) => r.old && !(r.share >= 0.1 && r.middleLength >= 8 && r.middleSimilarity < 0.3)],
    ["+ same veto, middle >= 20%", (r) => r.old && !(r.share >= 0.2 && r.middleLength >= 8 && r.middleSimilarity < 0.3)],
    ["issue 14 defaults (veto + tiny Jaccard 0.45, medium edit 0.85)", (r) => r.now],
  ];
  const pct = (x: number): string => x.toFixed(3);
  console.log(`tuning half (even ids): ${rows.length} pairs, heavy edits left out\n`);
  console.log(`| idea | F1 | ${BUCKETS.map((b) => `F1 ${b}`).join(" | ")} | hard-neg FP | lowest recall, edits at strength 1-2 |`);
  console.log(`|---|---|${BUCKETS.map(() => "---").join("|")}|---|---|`);
  for (const [name, decide] of ideas) {
    const all = score(rows.map(decide), rows.map((r) => r.pair.label));
    const per = BUCKETS.map((b) => {
      const sel = rows.filter((r) => r.pair.bucket === b);
      return pct(score(sel.map(decide), sel.map((r) => r.pair.label)).f1);
    });
    const hard = rows.filter((r) => HARD_NEGATIVE_TIERS.includes(r.pair.tier));
    const byKind = new Map<string, { n: number; hit: number }>();
    for (const r of rows) {
      const [kind, strength] = r.pair.edit.split(":");
      if (r.pair.tier !== "gen" || (strength !== "1" && strength !== "2")) continue;
      const e = byKind.get(kind!) ?? { n: 0, hit: 0 };
      e.n++;
      if (decide(r)) e.hit++;
      byKind.set(kind!, e);
    }
    const lowest = [...byKind].map(([k, e]) => [k, e.hit / e.n] as const).sort((x, y) => x[1] - y[1])[0];
    const fpRate = hard.filter(decide).length / Math.max(1, hard.length);
    console.log(`| ${name} | ${pct(all.f1)} | ${per.join(" | ")} | ${pct(fpRate)} | ${lowest ? `${lowest[0]} ${pct(lowest[1])}` : "-"} |`);
  }
}

await main();
