/**
 * Retrieval misses (issue 14): the labelled near-duplicates that the default
 * verdict accepts but the candidate lookup does not reach, with why: the
 * simhash distance and shared segments, the character 4-gram shingle sets and
 * their Jaccard, and how many band keys the two texts share.
 *
 *   npx tsx bench/quality/retrieval-misses.ts [--seed 20260601] [--all]
 *
 * Reach is the service's rule (candidates/probe.ts, query.ts): two equal
 * segments and distance <= 3, or a shared LSH band key (every key alone, the
 * key budget apart). --all also lists misses at strengths 3-4, heavy edits and
 * natural variants; --lsh1 leaves out the word keys of lsh2 (the keys before
 * issue 14's retrieval fix).
 */
import { analyzePair, buildPairs } from "./dataset.js";
import { loadChinese, loadEnglish } from "./sources.js";
import { createFingerprinter, hamming, shingleHashes } from "../../src/core/index.js";
import { sharedSegments } from "../../src/service/candidates/index.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const seed = Number(arg("seed", "20260601"));
const all = process.argv.includes("--all");
const lsh1 = process.argv.includes("--lsh1");
const keysOf = (keys: string[]) => (lsh1 ? keys.filter((k) => !k.startsWith("w:")) : keys);
const fp = await createFingerprinter();
const pairs = buildPairs([loadChinese(), loadEnglish()], seed);
const shingleSet = (t: string) => new Set(shingleHashes(t));
let misses = 0;
let positives = 0;
for (const p of pairs) {
  if (p.label !== 1) continue;
  const strength = Number(p.edit.split(":")[1] ?? "0");
  if (!all && (p.tier !== "gen" || strength > 2)) continue;
  const both = analyzePair(fp, p);
  if (!both) continue;
  const [a, b] = both;
  positives++;
  const v = fp.compare(a, b);
  if (!v.duplicate) continue;
  const d = hamming(a.simhash, b.simhash);
  const segs = sharedSegments(a.simhash, b.simhash);
  const keys = keysOf(a.lsh).filter((k) => keysOf(b.lsh).includes(k)).length;
  if ((d <= 3 && segs >= 2) || keys > 0) continue;
  misses++;
  const sa = shingleSet(a.normalized);
  const sb = shingleSet(b.normalized);
  const inter = [...sa].filter((x) => sb.has(x)).length;
  console.log(
    `#${p.id} ${p.lang} ${p.bucket} ${p.tier} ${p.edit} len ${a.length}/${b.length} rule ${v.rule} d=${d} segs=${segs} ` +
      `shingles ${sa.size}/${sb.size} shared ${inter} J=${(inter / (sa.size + sb.size - inter)).toFixed(3)} keys=${keys}`,
  );
  console.log(`   a: ${JSON.stringify(a.normalized)}`);
  console.log(`   b: ${JSON.stringify(b.normalized)}`);
}
console.log(`\nseed ${seed}: ${misses} of ${positives} ${all ? "positives" : "gen positives at strengths 1-2"} accepted by the verdict but not reached`);
