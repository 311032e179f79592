/**
 * Cost of the verdict per candidate pair (issue 14: the verdict runs on every
 * candidate), on the quality pairs, for the issue 6 rules, the issue 14
 * defaults, and the issue 14 defaults without the shared-part veto; same
 * process, same analyses, interleaved rounds. Usage:
 *
 *   npx tsx bench/quality/verdict-cost.ts [--rounds 3]
 */
import { performance } from "node:perf_hooks";
import { createFingerprinter, decide, DEFAULT_VERDICT_OPTIONS } from "../../src/core/index.js";
import type { Analysis, VerdictOptions } from "../../src/core/index.js";
import { writeDataset } from "./build-dataset.js";
import { BUCKETS } from "./dataset.js";
import type { Bucket } from "./dataset.js";
import { ISSUE6_VERDICT } from "./explore-rules.js";

const i = process.argv.indexOf("--rounds");
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 3;
const { pairs } = writeDataset(20260601);
const fp = await createFingerprinter();
const analysed: { bucket: Bucket; a: Analysis; b: Analysis }[] = [];
for (const p of pairs) {
  try {
    analysed.push({ bucket: p.bucket, a: fp.analyze(p.a), b: fp.analyze(p.b) });
  } catch {
    // empty after normalization
  }
}
const configs: [string, VerdictOptions][] = [
  ["issue 6 rules", ISSUE6_VERDICT],
  ["issue 14 defaults", DEFAULT_VERDICT_OPTIONS],
  ["issue 14 without the veto", { ...DEFAULT_VERDICT_OPTIONS, middleVeto: null }],
];
const ms = configs.map(() => Object.fromEntries(BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>);
// Per pair, every configuration in turn (the first one rotating by round), so
// machine noise and JIT warm-up fall on all of them alike.
for (let r = 0; r < rounds; r++) {
  for (const x of analysed) {
    for (let c = 0; c < configs.length; c++) {
      const k = (c + r) % configs.length;
      const t0 = performance.now();
      decide(x.a, x.b, configs[k]![1]);
      ms[k]![x.bucket] += performance.now() - t0;
    }
  }
}
const count = Object.fromEntries(BUCKETS.map((b) => [b, analysed.filter((x) => x.bucket === b).length * rounds])) as Record<Bucket, number>;
console.log(`| rules | ${BUCKETS.map((b) => `ms/pair ${b}`).join(" | ")} | ratio to issue 6, all pairs |`);
console.log(`|---|${BUCKETS.map(() => "---").join("|")}|---|`);
const total = (k: number): number => BUCKETS.reduce((t, b) => t + ms[k]![b], 0);
configs.forEach(([name], k) => {
  console.log(`| ${name} | ${BUCKETS.map((b) => (ms[k]![b] / count[b]).toFixed(3)).join(" | ")} | ${(total(k) / total(0)).toFixed(2)} |`);
});
