/**
 * Measures the issue 14 ideas on the tuning half (even pair ids) of the
 * quality pairs: per pair, the default verdict and the spread measures, saved
 * for quick rule searches. Usage: npx tsx bench/quality/explore.ts [scale]
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createFingerprinter, differingMiddle, editSimilarity, trigramJaccard, trigramSet, windowCoverage } from "../../src/core/index.js";
import { OUT_DIR, writeDataset } from "./build-dataset.js";
import { scaledSizes } from "./dataset.js";

const scale = Number(process.argv[2] ?? 1);
const { pairs } = writeDataset(20260601, scaledSizes(scale));
const fp = await createFingerprinter();
const rows = [];
for (const p of pairs) {
  let a, b;
  try {
    a = fp.analyze(p.a);
    b = fp.analyze(p.b);
  } catch {
    continue;
  }
  const v = fp.compare(a, b);
  const m = differingMiddle(a.normalized, b.normalized);
  const sa = trigramSet(a.normalized);
  const sb = trigramSet(b.normalized);
  rows.push({
    id: p.id, label: p.label, tier: p.tier, kind: p.edit, bucket: p.bucket, lang: p.lang,
    minLength: Math.min(a.length, b.length),
    dup: v.duplicate, rule: v.rule, distance: v.distance, cosine: v.cosine,
    edit: v.editSimilarity ?? editSimilarity(a.normalized, b.normalized),
    jac3: trigramJaccard(a.normalized, b.normalized), vetoed: v.vetoed ?? null,
    share: m.share, midSim: m.similarity, prefix: m.prefix, suffix: m.suffix,
    covAB: windowCoverage(a.normalized, sb), covBA: windowCoverage(b.normalized, sa),
  });
}
writeFileSync(join(OUT_DIR, "explore.json"), JSON.stringify(rows));
console.log(rows.length, "rows");
