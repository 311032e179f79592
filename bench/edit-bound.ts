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
 * Last, the edit rule as it is now, at the medium and long buckets'
 * thresholds (0.85, 0.75), on those pairs and on lightly edited copies (the
 * duplicates, whose similarity a report shows): the code-point bound, the
 * bigram bound and the whole matrix (`editSimilarity`, fastest-levenshtein's
 * blocks) as before (the baseline), against the code-point bound and the
 * distance inside Ukkonen's band of the threshold (`editSimilarityReaching`:
 * with the band's early exit, the bigram bound no longer pays for itself).
 *
 * Then the band's width on long texts (1,500 characters and more, at the
 * long bucket's 0.75): one band as high as the threshold allows (k), against
 * the band `editSimilarityAtLeast` starts with (48 edits) and widens fourfold.
 *
 * The edit similarity a report shows (exact, whatever the distance): the
 * whole matrix (fastest-levenshtein, the code before) against `editSimilarity`
 * (`levenshteinBanded`: the band widened until it holds the distance), on
 * long edited copies, long texts with passages replaced, unrelated long
 * texts and the shorter pairs sharing passages; values compared.
 *
 * Then the furthest-diagonal search (greedy.ts) in front of the band, in the
 * rule at 0.75: the band alone (the baseline) against the search for up to
 * 16 edits first (skipped when the code-point bound is past 16), on copies
 * with 1-4 and 8-15 characters replaced and on texts with passages replaced
 * (far apart).
 *
 * Then `/v1/compare`'s edit budget on long texts, near copies and texts far
 * apart (`levenshteinInBudget`): the distance or "bound", and the time.
 *
 * And the character cosine a report shows beside the edit similarity:
 * code-point counts in Maps of one-character strings (the baseline) against
 * typed arrays (`charCosine`), on the same pairs, values compared.
 *
 *   npx tsx bench/edit-bound.ts
 */
import { pathToFileURL } from "node:url";
import { characterBound, editDistanceLowerBound, editSimilarityMayReach, editSimilarityUpperBound } from "../src/core/similarity/edit-bound.js";
import { distance as fastestLevenshtein } from "fastest-levenshtein";
import { editSimilarity } from "../src/core/similarity/levenshtein.js";
import { editSimilarityReaching } from "../src/core/verdict.js";
import { editSimilarityAtLeast, levenshteinInBudget, levenshteinWithin } from "../src/core/similarity/banded.js";
import { charCosine, charCounts, cosine } from "../src/core/similarity/cosine.js";
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

/**
 * The edit similarity as computed before `levenshteinBanded` (the baseline of
 * the report section and of the rule's "whole matrix"): fastest-levenshtein's
 * blocks over the whole matrix, after re-coding both texts to one code unit
 * per code point when either has a character outside the BMP.
 */
export function wholeMatrixSimilarity(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const longer = Math.max(x.length, y.length);
  if (longer === 0) return 1;
  if (x.length === a.length && y.length === b.length) return 1 - fastestLevenshtein(a, b) / longer;
  const alphabet = new Map<string, number>();
  const recode = (chars: string[]) => String.fromCharCode(...chars.map((c) => alphabet.get(c) ?? (alphabet.set(c, alphabet.size), alphabet.size - 1)));
  return 1 - fastestLevenshtein(recode(x), recode(y)) / longer;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
}

/**
 * The baseline and the candidate timed over the same pairs in 5 interleaved
 * rounds: the median ns per pair of each. The results are summed, so no
 * call can be optimized away.
 */
function interleaved(pairs: readonly (readonly [string, string])[], baseline: (a: string, b: string) => number | undefined, candidate: (a: string, b: string) => number | undefined): [number, number] {
  const nsPerPair = (f: (a: string, b: string) => number | undefined) => {
    let sum = 0;
    const t = performance.now();
    for (const [a, b] of pairs) sum += f(a, b) ?? -1;
    if (Number.isNaN(sum)) throw new Error("unreachable");
    return ((performance.now() - t) * 1e6) / pairs.length;
  };
  const rows: [number, number][] = [];
  for (let round = 0; round < 5; round++) rows.push([nsPerPair(baseline), nsPerPair(candidate)]);
  return [median(rows.map((r) => r[0])), median(rows.map((r) => r[1]))];
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
      if (wholeMatrixSimilarity(a, b) >= MIN) fired++;
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

  for (const min of [0.85, 0.75]) {
    const rulePairs: [string, string][] = pairs.filter(([a, b]) => {
      const la = Array.from(a).length;
      const lb = Array.from(b).length;
      return Math.min(la, lb) / Math.max(la, lb) >= min;
    });
    // Lightly edited copies: a few characters changed, sometimes a passage added.
    const copies = rulePairs.length / 3;
    for (let i = 0; i < copies; i++) {
      const original = normalize(makeDoc(poems, 5000 + i));
      const a = Array.from(original);
      for (let e = 0; e < 1 + rng.int(8); e++) a[rng.int(a.length)] = "之";
      rulePairs.push([a.join("") + (rng.next() < 0.5 ? normalize(poems[rng.int(poems.length)]!).slice(0, 20) : ""), original]);
    }
    const before = (a: string, b: string) => (editSimilarityMayReach(a, b, min) ? wholeMatrixSimilarity(a, b) : undefined);
    const now = (a: string, b: string) => editSimilarityReaching(a, b, min);
    let fired = 0;
    for (const [a, b] of rulePairs) {
      const x = before(a, b);
      const y = now(a, b);
      if ((x !== undefined && x >= min) !== (y !== undefined && y >= min) || (y !== undefined && y !== wholeMatrixSimilarity(a, b))) throw new Error("the rule changed a verdict or a value");
      if (y !== undefined && y >= min) fired++;
    }
    const [w, k] = interleaved(rulePairs, before, now);
    const mean = Math.round(rulePairs.reduce((s2, [a]) => s2 + a.length, 0) / rulePairs.length);
    console.log(`edit rule at ${min}, ${rulePairs.length} pairs (mean ${mean} chars, ${Math.round(copies)} of them edited copies; ${fired} reach ${min}), 5 interleaved rounds:`);
    console.log(`  both bounds, then the whole matrix (baseline): ${w.toFixed(0)} ns/pair; code-point bound, then Ukkonen's band: ${k.toFixed(0)} ns/pair; ${(w / k).toFixed(2)}x`);
  }

  // Long texts: lightly edited copies (duplicates) and copies with passages replaced, kept when the code-point bound lets them through.
  const longPairs: [string, string][] = [];
  while (longPairs.length < 400) {
    const own: string[] = [];
    while (own.join("").length < 1500) own.push(poems[rng.int(poems.length)]!);
    const a = normalize(own.join("\n"));
    let b: string;
    if (rng.next() < 0.6) {
      const x = Array.from(a);
      for (let e = 0; e < 1 + rng.int(40); e++) x[rng.int(x.length)] = "之";
      b = `${x.join("")}（转载）`;
    } else b = normalize(own.map((p) => (rng.next() < 0.3 ? poems[rng.int(poems.length)]! : p)).join("\n"));
    if (editSimilarityMayReach(a, b, 0.75)) longPairs.push([a, b]);
  }
  const oneBand = (a: string, b: string) => {
    const longer = Math.max(Array.from(a).length, Array.from(b).length);
    const k = Math.floor(0.25 * longer) + 1;
    const d = levenshteinWithin(a, b, k);
    return d <= k ? 1 - d / longer : undefined;
  };
  const growing = (a: string, b: string) => editSimilarityAtLeast(a, b, 0.75);
  for (const [a, b] of longPairs) if (oneBand(a, b) !== growing(a, b)) throw new Error("the bands differ");
  const [bo, bg] = interleaved(longPairs, oneBand, growing);
  const longMean = Math.round(longPairs.reduce((s2, [a]) => s2 + a.length, 0) / longPairs.length);
  console.log(`band width, ${longPairs.length} long pairs (mean ${longMean} chars) at 0.75, 5 interleaved rounds:`);
  console.log(`  one band of k (baseline): ${bo.toFixed(0)} ns/pair; from 48 edits, widened fourfold: ${bg.toFixed(0)} ns/pair; ${(bo / bg).toFixed(2)}x`);

  // The similarity a report shows (every duplicate of a check, /v1/compare): exact, whatever the distance.
  const reportSets: [string, [string, string][]][] = [
    ["long edited copies", longPairs.filter(([, b]) => b.endsWith("（转载）"))],
    ["long, passages replaced", longPairs.filter(([, b]) => !b.endsWith("（转载）"))],
    ["long, unrelated", longPairs.map(([a], i) => [a, longPairs[(i + 1) % longPairs.length]![0]] as [string, string])],
    ["texts sharing passages", pairs.slice(0, 1000)],
  ];
  console.log(`reported edit similarity, whole matrix (fastest-levenshtein, the code before) against editSimilarity (the band widened until it holds the distance), 5 interleaved rounds:`);
  for (const [name, set] of reportSets) {
    for (const [a, b] of set) if (wholeMatrixSimilarity(a, b) !== editSimilarity(a, b)) throw new Error("the reported similarities differ");
    const [rw, rb] = interleaved(set, wholeMatrixSimilarity, editSimilarity);
    const mean = Math.round(set.reduce((s2, [a]) => s2 + a.length, 0) / set.length);
    console.log(`  ${name} (${set.length} pairs, mean ${mean} chars): ${rw.toFixed(0)} ns/pair; ${rb.toFixed(0)} ns/pair; ${(rw / rb).toFixed(2)}x`);
  }

  // Furthest diagonals in front of the band: a pair a few edits apart is settled without running the band's blocks.
  const few: [string, [string, string][]][] = [
    ["1-4 characters replaced", []],
    ["8-15 characters replaced", []],
    ["passages replaced (far apart)", []],
  ];
  for (let i = 0; i < 600; i++) {
    const own = Array.from({ length: 2 + rng.int(7) }, () => poems[rng.int(poems.length)]!);
    const a = normalize(own.join("\n"));
    const edited = (n: number) => {
      const x = Array.from(a);
      for (let e = 0; e < n; e++) x[rng.int(x.length)] = "之";
      return x.join("");
    };
    few[0]![1].push([a, edited(1 + rng.int(4))]);
    few[1]![1].push([a, edited(8 + rng.int(8))]);
    few[2]![1].push([a, normalize(own.map((p) => (rng.next() < 0.3 ? poems[rng.int(poems.length)]! : p)).join("\n"))]);
  }
  // The rule at 0.75 as the re-rank runs it: the code-point bound, then the band alone (a lower bound past 16
  // edits skips the search), against the search for up to 16 edits first when the bound allows it.
  const bandOnly = (a: string, b: string) => {
    const { distance, longer } = characterBound(a, b);
    return 1 - distance / longer < 0.75 ? undefined : editSimilarityAtLeast(a, b, 0.75, Infinity);
  };
  const withSearch = (a: string, b: string) => editSimilarityReaching(a, b, 0.75);
  console.log(`edit rule at 0.75, the code-point bound then the band alone (baseline) against furthest diagonals up to 16 edits first, 5 interleaved rounds:`);
  for (const [name, set] of few) {
    for (const [a, b] of set) if (bandOnly(a, b) !== withSearch(a, b)) throw new Error("the rule's values differ");
    const [fb, fg] = interleaved(set, bandOnly, withSearch);
    const mean = Math.round(set.reduce((s2, [a]) => s2 + a.length, 0) / set.length);
    console.log(`  ${name} (${set.length} pairs, mean ${mean} chars): ${fb.toFixed(0)} ns/pair; ${fg.toFixed(0)} ns/pair; ${(fb / fg).toFixed(2)}x`);
  }

  // /v1/compare's budget (NEARDUP_COMPARE_EDIT_MAX_CHARS 4,000: two 4,000-character texts' matrix): concatenated poems
  // against a copy with 20 characters replaced and 4 appended (24 edits), and against other poems (far apart).
  console.log(`/v1/compare's edit budget (levenshteinInBudget, 4,000 x 4,000 cells), median of 5 calls, distance or "bound":`);
  const poemsFrom = (start: number, length: number) => {
    let t = "";
    for (let i = start; t.length < length; i++) t += poems[i % poems.length];
    return normalize(t.slice(0, length));
  };
  for (const length of [4_000, 20_000, 100_000, 300_000]) {
    const a = poemsFrom(0, length);
    const x = Array.from(a);
    for (let e = 0; e < 20; e++) x[(e * 7919) % x.length] = "之";
    const near = `${x.join("")}（转载）`;
    const far = poemsFrom(20_000, length);
    const timed = (b: string) => {
      const ms: number[] = [];
      let d: number | undefined;
      for (let r = 0; r < 5; r++) {
        const t = performance.now();
        d = levenshteinInBudget(a, b, 4000 * 4000);
        ms.push(performance.now() - t);
      }
      return `${d ?? "bound"} in ${median(ms).toFixed(1)} ms`;
    };
    console.log(`  ${length} characters: near copy ${timed(near)}; far apart ${timed(far)}`);
  }

  const cosinePairs = pairs.slice(0, 2000);
  const mapCosine = (a: string, b: string) => cosine(charCounts(a), charCounts(b));
  for (const [a, b] of cosinePairs) if (mapCosine(a, b) !== charCosine(a, b)) throw new Error("the character cosines differ");
  const [cm, ct] = interleaved(cosinePairs, mapCosine, charCosine);
  console.log(`character cosine, ${cosinePairs.length} pairs, 5 interleaved rounds:`);
  console.log(`  Map counting (baseline): ${cm.toFixed(0)} ns/pair; typed arrays: ${ct.toFixed(0)} ns/pair; ${(cm / ct).toFixed(2)}x`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) run();
