/**
 * The re-rank's edit bound (issue 10): `editDistanceLowerBound` on sorted
 * bigram arrays with the first text's bigrams kept, against the Map-counting
 * version it replaced (the baseline, below), on the pairs the re-rank sees:
 * one text against many candidates of similar length (bench/service.ts
 * documents, 100-700 characters). Interleaved rounds; prints ns per pair.
 *
 *   npx tsx bench/edit-bound.ts
 */
import { pathToFileURL } from "node:url";
import { editDistanceLowerBound } from "../src/core/similarity/edit-bound.js";
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
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) run();
