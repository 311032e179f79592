/**
 * Issue 14, "different endings": measures, on the pairs the default verdict
 * calls duplicates, a veto for texts that share an opening but end
 * differently (no common ending holding a letter or digit, both differing
 * endings at least L code units, their 3-gram Jaccard below S), per seed and
 * half, so a threshold is chosen on the tuning half (even ids) and checked on
 * the held-out half (odd ids).
 *
 *   npx tsx bench/quality/ending-explore.ts [--seeds 20260601,7,11] [--buckets tiny,short] [--list]
 *
 * It runs the default rules with the veto off (`minEndingSimilarity: null`)
 * and measures candidate vetoes on the pairs they call duplicates. "spare one-word ends": endings that are one word
 * each are not vetoed (the chosen rule, `differentEnding` in the core).
 */
import { analyzePair, buildPairs } from "./dataset.js";
import { loadChinese, loadEnglish } from "./sources.js";
import { createFingerprinter, DEFAULT_VERDICT_OPTIONS, differingMiddle, oneWord } from "../../src/core/index.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const seeds = arg("seeds", "20260601,7,11").split(",").map(Number);
// The default rules without the veto being measured.
const fp = await createFingerprinter({ verdict: { ...DEFAULT_VERDICT_OPTIONS, buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, minEndingSimilarity: null })) } });
const sources = [loadChinese(), loadEnglish()];
interface Row { oneWordEnds: boolean; seed: number; held: boolean; label: 0 | 1; dup: boolean; bucket: string; vbucket: string; endDiff: boolean; shorterEnd: number; share: number; sim: number; what: string }
const rows: Row[] = [];
for (const seed of seeds) {
  for (const p of buildPairs(sources, seed)) {
    if (p.tier === "heavy") continue;
    const both = analyzePair(fp, p);
    if (!both) continue;
    const [a, b] = both;
    const v = fp.compare(a, b);
    const m = differingMiddle(a.normalized, b.normalized);
    const suffix = a.normalized.slice(a.normalized.length - m.suffix);
    const endDiff = !LETTER_OR_DIGIT.test(suffix) && m.middleA > 0 && m.middleB > 0;
    const oneWordEnds = oneWord(a.normalized, m.prefix, a.normalized.length - m.suffix) && oneWord(b.normalized, m.prefix, b.normalized.length - m.suffix);
    rows.push({ oneWordEnds, seed, held: p.id % 2 === 1, label: p.label, dup: v.duplicate, bucket: p.bucket, vbucket: v.bucket, endDiff, shorterEnd: Math.min(m.middleA, m.middleB), share: m.share, sim: m.similarity,
      what: `#${p.id} ${p.tier} ${p.edit} ${JSON.stringify(a.normalized.slice(-30))} / ${JSON.stringify(b.normalized.slice(-30))}` });
  }
}
const f1 = (sel: Row[], veto: (r: Row) => boolean) => {
  let tp = 0, fp = 0, fn = 0;
  for (const r of sel) { const d = r.dup && !veto(r); if (d && r.label === 1) tp++; else if (d) fp++; else if (r.label === 1) fn++; }
  return (2 * tp) / (2 * tp + fp + fn);
};
for (const bucketName of (arg("buckets", "tiny")).split(",")) {
  console.log(`\n## verdict bucket ${bucketName}: F1 of the pairs' own buckets, tune / held per seed; veto only in this verdict bucket`);
  for (const spare of [false, true]) for (const L of [0, 1, 2, 3, 4, 5, 6, 8]) for (const S of [0.3, 0.5]) for (const minShare of [0, 0.1]) {
    if (L === 0 && (S !== 0.3 || minShare !== 0 || spare)) continue;
    const veto = (r: Row) => L > 0 && r.vbucket === bucketName && r.endDiff && r.shorterEnd >= L && r.sim < S && r.share >= minShare && !(spare && r.oneWordEnds);
    const cells = seeds.map((seed) => {
      const t = rows.filter((r) => r.seed === seed && !r.held);
      const h = rows.filter((r) => r.seed === seed && r.held);
      const tl = t.filter((r) => r.bucket === "<50"), hl = h.filter((r) => r.bucket === "<50");
      return `${f1(t, veto).toFixed(4)}/${f1(h, veto).toFixed(4)} (<50 ${f1(tl, veto).toFixed(3)}/${f1(hl, veto).toFixed(3)})`;
    });
    const changed = rows.filter((r) => r.dup && veto(r));
    console.log(`${spare ? "spare one-word ends, " : ""}L=${L} S=${S} share>=${minShare}: ${cells.join(" | ")}  vetoed pos ${changed.filter((r) => r.label === 1).length} neg ${changed.filter((r) => r.label === 0).length}`);
  }
}
if (process.argv.includes("--list")) for (const r of rows.filter((r) => r.dup && r.vbucket === "tiny" && r.endDiff && r.shorterEnd >= 1 && r.sim < 0.3 && !r.oneWordEnds)) console.log(`${r.label} s${r.seed} ${r.held ? "held" : "tune"} end ${r.shorterEnd} share ${r.share.toFixed(2)} ${r.what}`);
