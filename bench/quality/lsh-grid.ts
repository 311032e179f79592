/**
 * LSH parameter search for the quality benchmark (issue 6): which shingles and
 * which banding make the best second retrieval key beside the simhash segments.
 *
 *   npx tsx bench/quality/lsh-grid.ts            # needs bench/out/quality/pairs.jsonl (npm run bench:quality)
 *
 * For every shingle kind (character k-grams of the normalized text without
 * spaces, or word k-shingles of the core tokens) and banding (bands x rows),
 * a pair is found end to end when the default verdict says duplicate AND (b is
 * within its bucket's search radius of a, under a radius policy, OR the two
 * share a band key). Printed: F1 per bucket on the held-out half (odd ids) and
 * on all pairs, keys per document, and the LSH candidate rate: over all
 * (b_i, a_j) with i != j, the share of pairs sharing a key, scaled to engine
 * hits per lookup per million stored documents (an upper-side estimate: the
 * pair set is dense in same-template texts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createFingerprinter, estimateJaccard, minhashSignature, murmur3, permutationSeeds, shingleHashes } from "../../src/core/index.js";
import type { Analysis } from "../../src/core/index.js";
import { OUT_DIR } from "./build-dataset.js";
import { BUCKETS } from "./dataset.js";
import type { Bucket, Pair } from "./dataset.js";
import { score } from "./metrics.js";

const PERMS = 128;
const seeds = permutationSeeds(PERMS);
const encoder = new TextEncoder();

/** Hashes of word k-shingles: the tokens joined by U+0020, each window of k tokens hashed as one string. */
function wordShingleHashes(tokens: string[], k: number): Uint32Array {
  if (tokens.length === 0) return new Uint32Array(0);
  const bytes = encoder.encode(tokens.join(" "));
  const starts: number[] = [0];
  for (let p = 0; p < bytes.length; p++) if (bytes[p] === 0x20) starts.push(p + 1);
  starts.push(bytes.length + 1);
  const n = tokens.length;
  if (n < k) return Uint32Array.of(murmur3(bytes, 0, bytes.length, 0));
  const out = new Uint32Array(n - k + 1);
  for (let i = 0; i + k <= n; i++) out[i] = murmur3(bytes, starts[i]!, starts[i + k]! - 1 - starts[i]!, 0);
  return out;
}

interface Doc {
  analysis: Analysis;
  normalized: string;
  tokens: string[];
}
interface PairRow {
  pair: Pair;
  verdict: boolean;
  distance: number;
  /** Bucket of b's own length: 0 tiny, 1 short, 2 medium, 3 long+ */
  bBucket: number;
  a: Doc;
  b: Doc;
  aLength: number;
}

type Kind = { name: string; hashes: (d: Doc, len: number) => Uint32Array };
const KINDS: Kind[] = [
  { name: "char3", hashes: (d) => shingleHashes(d.normalized, 3).slice() },
  { name: "char4", hashes: (d) => shingleHashes(d.normalized, 4).slice() },
  { name: "char5", hashes: (d) => shingleHashes(d.normalized, 5).slice() },
  { name: "word1", hashes: (d) => wordShingleHashes(d.tokens, 1) },
  { name: "word2", hashes: (d) => wordShingleHashes(d.tokens, 2) },
];
const BANDINGS: [number, number][] = [[8, 2], [12, 3], [16, 2], [16, 3], [16, 4], [20, 3], [24, 3], [24, 4], [32, 4]];
// Radius policies by b's bucket (tiny, short, medium, long/huge); -1: no simhash lookup.
const RADII: Record<string, number[]> = { defaults: [11, 11, 7, 3], "7/7/7/3": [7, 7, 7, 3], "3 everywhere": [3, 3, 3, 3], "lsh only": [-1, -1, -1, -1] };

const fp = await createFingerprinter();
const pairs = readFileSync(join(OUT_DIR, "pairs.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Pair);
const rows: PairRow[] = [];
const bucketIndex = (len: number): number => (len < 50 ? 0 : len < 200 ? 1 : len < 1000 ? 2 : 3);
for (const pair of pairs) {
  if (pair.tier === "heavy") continue;
  try {
    const a = fp.analyze(pair.a);
    const b = fp.analyze(pair.b);
    const v = fp.compare(a, b);
    rows.push({
      pair, verdict: v.duplicate, distance: v.distance, bBucket: bucketIndex(b.length), aLength: a.length,
      a: { analysis: a, normalized: a.normalized, tokens: fp.tokenize(pair.a) },
      b: { analysis: b, normalized: b.normalized, tokens: fp.tokenize(pair.b) },
    });
  } catch {
    // empty after normalization
  }
}
console.log(`${rows.length} scored pairs`);

const verdicts = new Map<number, boolean>();
/** Verdict on (b_i, a_j), cached across configurations. */
function crossVerdict(i: number, j: number): boolean {
  const key = i * rows.length + j;
  let v = verdicts.get(key);
  if (v === undefined) {
    v = fp.compare(rows[j]!.a.analysis, rows[i]!.b.analysis).duplicate;
    verdicts.set(key, v);
  }
  return v;
}

const heldOut = (r: PairRow): boolean => r.pair.id % 2 === 1;
const f1 = (sel: PairRow[], found: (r: PairRow) => boolean): number => score(sel.map((r) => r.verdict && found(r)), sel.map((r) => r.pair.label)).f1;

for (const kind of KINDS) {
  const sigA = rows.map((r) => minhashSignature(kind.hashes(r.a, r.aLength), seeds));
  const sigB = rows.map((r) => minhashSignature(kind.hashes(r.b, r.aLength), seeds));
  const jacc = rows.map((_r, i) => estimateJaccard(sigA[i]!, sigB[i]!));
  const posJ = rows.filter((r) => r.pair.label === 1).map((r) => jacc[rows.indexOf(r)]!);
  posJ.sort((x, y) => x - y);
  console.log(`\n## ${kind.name}: positives' estimated Jaccard p10 ${posJ[Math.floor(posJ.length * 0.1)]!.toFixed(2)} median ${posJ[Math.floor(posJ.length / 2)]!.toFixed(2)}`);
  console.log(`| bands x rows | hits/lookup/1M | radii | ${BUCKETS.join(" | ")} | all (held out) | all |`);
  for (const [bands, rows_] of BANDINGS) {
    const keyOf = (sig: Uint32Array, b: number): string => {
      let h = b;
      for (let i = b * rows_; i < (b + 1) * rows_; i++) h = (Math.imul(h ^ sig[i]!, 0x9e3779b1) + 0x7f4a7c15) | 0;
      return `${b}:${h}`;
    };
    const share = rows.map((_r, i) => {
      for (let b = 0; b < bands; b++) {
        let same = true;
        for (let j = b * rows_; j < (b + 1) * rows_; j++) if (sigA[i]![j] !== sigB[i]![j]) { same = false; break; }
        if (same) return true;
      }
      return false;
    });
    // Cross-pair candidate rate: b_i against every a_j, j != i.
    const index = new Map<string, number[]>();
    rows.forEach((_r, j) => { for (let b = 0; b < bands; b++) { const k = keyOf(sigA[j]!, b); const l = index.get(k); if (l) l.push(j); else index.set(k, [j]); } });
    let cross = 0;
    let crossOther = 0;
    rows.forEach((_r, i) => {
      const hit = new Set<number>();
      for (let b = 0; b < bands; b++) for (const j of index.get(keyOf(sigB[i]!, b)) ?? []) if (j !== i) hit.add(j);
      cross += hit.size;
      for (const j of hit) if (!crossVerdict(i, j)) crossOther++;
    });
    const scale = 1e6 / (rows.length * (rows.length - 1));
    const perMillion = `${Math.round(cross * scale)} (${Math.round(crossOther * scale)} not dup)`;
    for (const [policy, radii] of Object.entries(RADII)) {
      const found = (r: PairRow, i: number): boolean => r.distance <= radii[r.bBucket]! || share[i]!;
      const idx = new Map(rows.map((r, i) => [r, i]));
      const fnd = (r: PairRow): boolean => found(r, idx.get(r)!);
      const held = rows.filter(heldOut);
      const cells = BUCKETS.map((bk: Bucket) => f1(held.filter((r) => r.pair.bucket === bk), fnd).toFixed(3));
      console.log(`| ${bands}x${rows_} | ${perMillion} | ${policy} | ${cells.join(" | ")} | ${f1(held, fnd).toFixed(3)} | ${f1(rows, fnd).toFixed(3)} |`);
    }
  }
}
