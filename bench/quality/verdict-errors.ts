/**
 * The pairwise verdict's errors on the quality benchmark (issue 14): every
 * false alarm and every miss (heavy edits apart), with the measures the
 * rules look at, so that a rule change can be argued from the errors.
 *
 *   npx tsx bench/quality/verdict-errors.ts [--seed 20260601] [--bucket "<50"] [--half tune|held]
 *
 * `--half tune` lists even pair ids (the half rules may be tuned on), `held`
 * odd ids. Prints F1 of the selection at the end.
 */
import { analyzePair, buildPairs } from "./dataset.js";
import { score } from "./metrics.js";
import { loadChinese, loadEnglish } from "./sources.js";
import { createFingerprinter, differingMiddle } from "../../src/core/index.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const seed = Number(arg("seed", "20260601"));
const bucket = arg("bucket", "");
const half = arg("half", "");
const fp = await createFingerprinter();
const predicted: boolean[] = [];
const labels: (0 | 1)[] = [];
for (const p of buildPairs([loadChinese(), loadEnglish()], seed)) {
  if (p.tier === "heavy" || (bucket !== "" && p.bucket !== bucket)) continue;
  if ((half === "tune" && p.id % 2 !== 0) || (half === "held" && p.id % 2 !== 1)) continue;
  const both = analyzePair(fp, p);
  if (!both) continue;
  const [a, b] = both;
  const v = fp.compare(a, b);
  predicted.push(v.duplicate);
  labels.push(p.label);
  if (v.duplicate === (p.label === 1)) continue;
  const m = differingMiddle(a.normalized, b.normalized);
  console.log(
    `${v.duplicate ? "FALSE ALARM" : "MISS"} #${p.id} ${p.lang} ${p.bucket} ${p.tier} ${p.edit} len ${a.length}/${b.length} ` +
      `rule ${v.rule ?? "-"} vetoed ${v.vetoed ?? "-"} d=${v.distance} cos=${v.cosine.toFixed(2)} edit=${v.editSimilarity?.toFixed(2) ?? "-"} ` +
      `jac=${v.jaccard?.toFixed(2) ?? "-"} word=${v.wordShare?.toFixed(2) ?? "-"} prefix=${m.prefix} suffix=${m.suffix} middles=${m.middleA}/${m.middleB}`,
  );
  console.log(`   a: ${JSON.stringify(a.normalized.slice(0, 160))}`);
  console.log(`   b: ${JSON.stringify(b.normalized.slice(0, 160))}`);
}
const s = score(predicted, labels);
console.log(`\nseed ${seed}${bucket ? ` bucket ${bucket}` : ""}${half ? ` ${half} half` : ""}: ${labels.length} pairs, P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`);
