/**
 * What the two-key rule (core length-bounds.ts `twoKeyLengths`) costs in recall:
 * of the pairs the verdict rules call duplicates, those a lookup reaches only
 * at lengths where just the containment rule holds, with no shared segment,
 * and how many of them share fewer than two band keys (the rule no longer
 * reads those). On this benchmark's pairs, and on labelled pair files
 * (JSONL with `a`, `b` and `kind` "pos" or "neg") given as arguments:
 *
 *   npx tsx bench/quality/two-key-reach.ts [pairs.jsonl ...]
 */
import { readFileSync } from "node:fs";
import { createFingerprinter, type Analysis } from "../../src/core/fingerprinter.js";
import { lengthAllowed, twoKeyLengths } from "../../src/core/length-bounds.js";
import { sharedSegments } from "../../src/service/candidates/query.js";
import { buildPairs } from "./dataset.js";
import { loadChinese, loadEnglish } from "./sources.js";

const fp = await createFingerprinter();

function tally(name: string, pairs: Iterable<{ a: string; b: string; positive: boolean }>): void {
  const t = { duplicates: 0, truePositives: 0, twoKeyOnly: 0, twoKeyOnlyTrue: 0, underTwoKeys: 0, underTwoKeysTrue: 0, notAnalysed: 0 };
  const onlyTwoKey = (x: Analysis, y: Analysis) => {
    const two = twoKeyLengths(fp.verdictOptions, x.length);
    return two !== undefined && lengthAllowed(two, y.length);
  };
  for (const p of pairs) {
    let a: Analysis, b: Analysis;
    try {
      a = fp.analyze(p.a);
      b = fp.analyze(p.b);
    } catch {
      t.notAnalysed++; // a lone surrogate: the service refuses such a text
      continue;
    }
    if (!fp.compare(a, b).duplicate) continue;
    t.duplicates++;
    if (p.positive) t.truePositives++;
    if (sharedSegments(a.simhash, b.simhash) > 0 || !(onlyTwoKey(a, b) || onlyTwoKey(b, a))) continue;
    t.twoKeyOnly++;
    if (p.positive) t.twoKeyOnlyTrue++;
    if (a.lsh.filter((k) => b.lsh.includes(k)).length < 2) {
      t.underTwoKeys++;
      if (p.positive) t.underTwoKeysTrue++;
    }
  }
  console.log(`| ${name} | ${t.duplicates} (${t.truePositives} true) | ${t.twoKeyOnly} (${t.twoKeyOnlyTrue} true) | ${t.underTwoKeys} (${t.underTwoKeysTrue} true) | ${t.notAnalysed} |`);
}

console.log("| pairs | called duplicate | reached only at two-key lengths, no shared segment | of those, sharing under two keys (no longer read) | not analysed |");
console.log("|---|---|---|---|---|");
tally(
  "quality benchmark",
  buildPairs([loadChinese(), loadEnglish()], 20260601).map((p) => ({ a: p.a, b: p.b, positive: p.label === 1 })),
);
for (const file of process.argv.slice(2)) {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  tally(file, lines.map((l) => JSON.parse(l) as { a: string; b: string; kind: string }).map((p) => ({ a: p.a, b: p.b, positive: p.kind === "pos" })));
}
