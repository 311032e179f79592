/**
 * The re-rank's edit bound (issue 10): `editDistanceLowerBound` on sorted
 * bigram arrays with the first text's bigrams kept, against the Map-counting
 * version it replaced (the baseline, below), on the pairs the re-rank sees:
 * one text against many candidates of similar length (bench/service.ts
 * documents, 100-700 characters). Interleaved rounds; prints ns per pair.
 *
 * Then the whole edit rule as the re-rank runs it, on pairs that share
 * passages (a text of 2-8 poems against texts with some of its poems
 * replaced, kept when the length ratio allows the rule at 0.85): the bigram
 * bound alone in front of the exact distance (the baseline), against
 * `editSimilarityMayReach` (the code-point bound first, then the bigram
 * bound). Prints ns per pair and how many pairs reach the exact distance.
 *
 *   npx tsx bench/edit-bound.ts
 */
import { pathToFileURL } from "node:url";
import { editDistanceLowerBound, editSimilarityMayReach, editSimilarityUpperBound } from "../src/core/similarity/edit-bound.js";
import { editSimilarity } from "../src/core/similarity/levenshtein.js";
import { createRng } from "./quality/rng.js";
import { normalize } from "../src/core/normalize.js";
import { loadPoems } from "./poems.js";
import { makeDoc } from "./service.js";

/**
 * The baseline: the bound as first written (issue 15), bigram counts in Maps,
 * both texts counted for every pair. The unit test takes it as its oracle.
 */
export function mapCountingBound(a: string, b: string): number {
  if (a === b) return 0;
  const counts = (t: string) => {
    const m = new Map<number, number>();
    let prev = -1;
    let length = 0;
    for (let i = 0; i < t.length; i++) {
      const cp = t.codePointAt(i)!;
      if (cp > 0xffff) i++;
      length++;
      if (prev >= 0) m.set(prev * 0x110000 + cp, (m.get(prev * 0x110000 + cp) ?? 0) + 1);
      prev = cp;
    }
    return { m, length };
  };
  const x = counts(a);
  const y = counts(b);
  let l1 = 0;
  for (const [k, n] of x.m) l1 += Math.abs(n - (y.m.get(k) ?? 0));
  for (const [k, n] of y.m) if (!x.m.has(k)) l1 += n;
  return Math.max(Math.abs(x.length - y.length), Math.ceil(l1 / 4));
}

function run(): void {
  const poems = loadPoems();
  const texts = Array.from({ length: 2000 }, (_, i) => normalize(makeDoc(poems, i)));
  const queries = texts.slice(0, 40);
  const candidates = texts.slice(40, 90);
  const time = (bound: (a: string, b: string) => number): number => {
    let sum = 0;
    const t = performance.now();
    for (const q of queries) for (const c of candidates) sum += bound(q, c);
    if (sum < 0) throw new Error("unreachable");
    return ((performance.now() - t) * 1e6) / (queries.length * candidates.length);
  };
  for (const q of queries) for (const c of candidates) if (mapCountingBound(q, c) !== editDistanceLowerBound(q, c)) throw new Error("the two bounds differ");
  const rows: [number, number][] = [];
  for (let round = 0; round < 7; round++) rows.push([time(mapCountingBound), time(editDistanceLowerBound)]);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const base = median(rows.map((r) => r[0]));
  const now = median(rows.map((r) => r[1]));
  console.log(`edit bound, ${queries.length} texts x ${candidates.length} candidates (mean ${Math.round(texts.reduce((s, t) => s + t.length, 0) / texts.length)} chars), 7 interleaved rounds:`);
  console.log(`  Map counting (baseline): ${base.toFixed(0)} ns/pair; sorted bigrams, first text kept: ${now.toFixed(0)} ns/pair; ${(base / now).toFixed(2)}x`);

  // The edit rule on pairs sharing passages.
  const rng = createRng(99);
  const MIN = 0.85;
  const pairs: [string, string][] = [];
  for (let q = 0; pairs.length < 3000; q++) {
    const own = Array.from({ length: 2 + rng.int(7) }, () => poems[rng.int(poems.length)]!);
    const a = normalize(own.join("\n"));
    for (let c = 0; c < 10; c++) {
      const b = normalize(own.map((p) => (rng.next() < c / 10 ? poems[rng.int(poems.length)]! : p)).join("\n"));
      const la = Array.from(a).length;
      const lb = Array.from(b).length;
      if (Math.min(la, lb) / Math.max(la, lb) >= MIN && a !== b) pairs.push([a, b]);
    }
  }
  const rule = (gate: (a: string, b: string) => boolean) => {
    let exact = 0;
    let fired = 0;
    const t = performance.now();
    for (const [a, b] of pairs) {
      if (!gate(a, b)) continue;
      exact++;
      if (editSimilarity(a, b) >= MIN) fired++;
    }
    return { ns: ((performance.now() - t) * 1e6) / pairs.length, exact, fired };
  };
  const bigramOnly = (a: string, b: string) => editSimilarityUpperBound(a, b) >= MIN;
  const both = (a: string, b: string) => editSimilarityMayReach(a, b, MIN);
  const ruleRows: [ReturnType<typeof rule>, ReturnType<typeof rule>][] = [];
  for (let round = 0; round < 5; round++) ruleRows.push([rule(bigramOnly), rule(both)]);
  const [b0, b1] = [median(ruleRows.map((r) => r[0].ns)), median(ruleRows.map((r) => r[1].ns))];
  const [first] = ruleRows;
  if (first![0].fired !== first![1].fired) throw new Error("the gates let different verdicts through");
  console.log(`edit rule at ${MIN}, ${pairs.length} pairs sharing passages, 5 interleaved rounds:`);
  console.log(`  bigram bound, then exact (baseline): ${b0.toFixed(0)} ns/pair, ${first![0].exact} exact; code-point bound first: ${b1.toFixed(0)} ns/pair, ${first![1].exact} exact; ${(b0 / b1).toFixed(2)}x (${first![0].fired} pairs reach ${MIN} with either)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) run();
