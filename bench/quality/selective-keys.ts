/**
 * Selective candidate keys (issue 9): which engine query keeps end-to-end
 * recall on the quality benchmark within 0.005 of today's while drawing the
 * fewest engine hits per lookup at 50M stored documents.
 *
 *   npx tsx bench/quality/selective-keys.ts [--texts 60000] [--budgets 0,200] [--budget-only]
 *
 * For each option (segment fields: a lookup needs >= s exact segments of the
 * four, plus d <= 3 in the re-rank; LSH keys: >= m shared band keys of a
 * banding), printed:
 * - end-to-end recall on the labelled positives (heavy edits apart): the
 *   default verdict says duplicate AND the option's query reaches b from a;
 * - engine hits per lookup per million stored documents, estimated two ways:
 *   (1) over every cross pair (b_i, a_j), i != j, of the pair set (dense in
 *   same-template texts: errs high); (2) from the key distribution of real
 *   texts (the quality sources, `--texts` of them): for each key kind, the
 *   chance that two random texts share it, sum of p(v)^2 over values v,
 *   estimated without bias by colliding pairs / all pairs; hits at N = N x that;
 * - the estimate at 50M documents (engine hits are linear in N).
 *
 * Options with "+ words" also take the exact keys of short texts: the word
 * keys (lsh2, core word-keys.ts) and the block keys (lsh3, core
 * block-keys.ts; `--no-blocks` leaves them out, as lsh2 did): a document
 * sharing one is reached; their real-text rate is counted from postings
 * (pairs sharing such a key / all pairs). The key-budget table plans over the
 * band keys and, with `--words`, the word and block keys.
 *
 * A lookup also takes its lookup-only keys (the lookup block keys, core
 * block-keys.ts `lookupBlockKeys`, spec §9.2) against the stored word and
 * block keys of the other text, as the service does (`--no-lookup` leaves them
 * out, as before they existed): the reach and the real-text rates of the word
 * options are then asymmetric, lookup side against stored side.
 */
import { buildPairs } from "./dataset.js";
import { loadChinese, loadEnglish } from "./sources.js";
import { createFingerprinter, createLshKeyer, DEFAULT_VERDICT_OPTIONS, hamming } from "../../src/core/index.js";
import { candidateLengths, lengthAllowed } from "../../src/core/length-bounds.js";
import type { Analysis } from "../../src/core/index.js";
import { planKeys, reaches } from "../../src/service/candidates/index.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

interface Banding {
  bands: number;
  rows: number;
}
interface Option {
  name: string;
  /** Exact segments needed (1..4). */
  segs: number;
  banding: Banding;
  /** Shared LSH keys needed. */
  keys: number;
  /** A shared word key of a short text reaches too (lsh2). */
  words?: boolean;
}

const OPTIONS: Option[] = [
  { name: "today: seg>=1 | lsh 16x3 >=1", segs: 1, banding: { bands: 16, rows: 3 }, keys: 1 },
  { name: "seg>=2 | lsh 16x3 >=1", segs: 2, banding: { bands: 16, rows: 3 }, keys: 1 },
  { name: "seg>=2 | lsh 16x3 >=1 + words (lsh2)", segs: 2, banding: { bands: 16, rows: 3 }, keys: 1, words: true },
  { name: "seg>=1 | lsh 16x3 >=2", segs: 1, banding: { bands: 16, rows: 3 }, keys: 2 },
  { name: "seg>=2 | lsh 16x3 >=2", segs: 2, banding: { bands: 16, rows: 3 }, keys: 2 },
  { name: "seg>=2 | lsh 20x4 >=1", segs: 2, banding: { bands: 20, rows: 4 }, keys: 1 },
  { name: "seg>=2 | lsh 24x4 >=1", segs: 2, banding: { bands: 24, rows: 4 }, keys: 1 },
  { name: "seg>=2 | lsh 32x4 >=1", segs: 2, banding: { bands: 32, rows: 4 }, keys: 1 },
  { name: "seg>=2 | lsh 32x3 >=2", segs: 2, banding: { bands: 32, rows: 3 }, keys: 2 },
  { name: "seg>=2 | lsh 24x3 >=2", segs: 2, banding: { bands: 24, rows: 3 }, keys: 2 },
];

const bandingKey = (b: Banding) => `${b.bands}x${b.rows}`;

function sharedSegments(a: [string, string, string, string], b: [string, string, string, string]): number {
  let n = 0;
  for (let i = 0; i < 4; i++) if (a[i] === b[i]) n++;
  return n;
}

function sharedKeys(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  const set = new Set(b);
  for (const k of a) if (set.has(k)) n++;
  return n;
}

/** Chance that two random texts agree on >= `need` of the listed key slots, estimated from collisions. */
function collisionRate(keys: string[][], need: number): number {
  // Count pairs sharing >= need slots: index every combination of `need` slot values.
  const n = keys.length;
  const counts = new Map<string, number>();
  const slots = keys[0]?.length ?? 0;
  const combos: number[][] = [];
  const rec = (start: number, acc: number[]) => {
    if (acc.length === need) return void combos.push([...acc]);
    for (let i = start; i < slots; i++) rec(i + 1, [...acc, i]);
  };
  rec(0, []);
  for (const k of keys) for (const c of combos) {
    const key = c.map((i) => `${i}=${k[i]}`).join("|");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let pairs = 0;
  for (const c of counts.values()) pairs += (c * (c - 1)) / 2;
  // A pair sharing more than `need` slots is counted once per combination: a small overcount (upper estimate).
  return pairs / ((n * (n - 1)) / 2);
}

async function main(): Promise<void> {
  const textsWanted = Number(arg("texts", "60000"));
  const fp = await createFingerprinter();
  const keyers = new Map(OPTIONS.map((o) => [bandingKey(o.banding), createLshKeyer(o.banding)]));
  const sources = [loadChinese(), loadEnglish()];
  const pairs = buildPairs(sources, 20260601);
  type Doc = { a: Analysis; segs: [string, string, string, string]; lsh: Map<string, string[]>; words: string[]; lookup: string[] };
  // --no-lookup: without the lookup-only keys (spec §9.2), as before them.
  const lookups = !process.argv.includes("--no-lookup");
  // The exact keys of short texts: word keys (lsh2) and block keys (lsh3), apart from the band keys.
  // --no-blocks: as lsh2 did, without the block keys.
  const blocks = !process.argv.includes("--no-blocks");
  const isWord = (k: string) => k.startsWith("w:") || k.startsWith("p:");
  const doc = (a: Analysis): Doc => ({
    a,
    segs: a.segments,
    lsh: new Map([...keyers].map(([k, keyer]) => [k, keyer.keys(a.normalized).filter((x) => !isWord(x))])),
    words: a.lsh.filter((k) => isWord(k) && (blocks || !k.startsWith("p:"))),
    lookup: lookups && blocks ? (a.lookupLsh ?? []) : [],
  });
  const rows: { a: Doc; b: Doc; label: 0 | 1; heavy: boolean; verdict: boolean; id: number }[] = [];
  for (const p of pairs) {
    try {
      const a = fp.analyze(p.a);
      const b = fp.analyze(p.b);
      rows.push({ a: doc(a), b: doc(b), label: p.label, heavy: p.tier === "heavy", verdict: fp.compare(a, b).duplicate, id: p.id });
    } catch {
      // refused input (a lone surrogate): the service never stores it either
    }
  }
  // x looks up, y is stored: x's word and block keys and its lookup-only keys against y's stored ones.
  const wordReach = (o: Option, x: Doc, y: Doc) => o.words === true && (sharedKeys(x.words, y.words) >= 1 || sharedKeys(x.lookup, y.words) >= 1);
  const reach = (o: Option, x: Doc, y: Doc) =>
    (hamming(x.a.simhash, y.a.simhash) <= 3 && sharedSegments(x.segs, y.segs) >= o.segs) || sharedKeys(x.lsh.get(bandingKey(o.banding))!, y.lsh.get(bandingKey(o.banding))!) >= o.keys || wordReach(o, x, y);
  const engineReach = (o: Option, x: Doc, y: Doc) =>
    sharedSegments(x.segs, y.segs) >= o.segs || sharedKeys(x.lsh.get(bandingKey(o.banding))!, y.lsh.get(bandingKey(o.banding))!) >= o.keys || wordReach(o, x, y);

  // Real-text key distribution: the sources' texts (all groups), up to --texts.
  const real: Doc[] = [];
  outer: for (const s of sources)
    for (const g of s.groups)
      for (const t of g.docs) {
        if (real.length >= textsWanted) break outer;
        try {
          real.push(doc(fp.analyze(t)));
        } catch {
          // skip
        }
      }

  const positives = rows.filter((r) => r.label === 1 && !r.heavy);
  const heldOut = positives.filter((r) => r.id % 2 === 1);
  console.log(`${rows.length} pairs (${positives.length} positives, heavy edits apart); ${real.length} real texts for the key distribution\n`);
  const wordRate = lookupRate(real.map((d) => [...d.words, ...d.lookup]), real.map((d) => d.words));
  const wordPositives = positives.filter((r) => r.a.words.length > 0 || r.b.words.length > 0).length;
  console.log(`word and block keys: ${real.filter((d) => d.words.length > 0).length} of ${real.length} real texts have them, ${(real.reduce((t, d) => t + d.words.length, 0) / Math.max(1, real.filter((d) => d.words.length > 0).length)).toFixed(1)} keys each on average; ${wordPositives} positive pairs have them on a side`);
  for (const [name, prefix] of [["word", "w:"], ["block", "p:"]] as const) {
    const keys = real.map((d) => d.words.filter((k) => k.startsWith(prefix)));
    const holding = keys.filter((k) => k.length > 0);
    console.log(`  ${name} keys alone: ${holding.length} texts, ${(holding.reduce((t, k) => t + k.length, 0) / Math.max(1, holding.length)).toFixed(1)} keys each; two random texts share one with probability ${(postingsRate(keys) * 1e6).toFixed(2)} per million`);
  }
  {
    const holding = real.filter((d) => d.lookup.length > 0);
    const only = lookupRate(real.map((d) => d.lookup), real.map((d) => d.words));
    console.log(`  lookup-only keys: ${holding.length} texts, ${(holding.reduce((t, d) => t + d.lookup.length, 0) / Math.max(1, holding.length)).toFixed(1)} keys each (most ${Math.max(0, ...holding.map((d) => d.lookup.length))}); a lookup's one matches a random text's stored key with probability ${(only * 1e6).toFixed(2)} per million`);
  }
  console.log("");
  console.log("| option | end-to-end recall (all / held out) | hits/lookup/1M, pair set | hits/lookup/1M, real-text keys (seg + lsh + words) | est. hits/lookup at 50M |");
  console.log("|---|---|---|---|---|");
  let base = 0;
  // --budget-only: the default keys (the first three options) and the key-budget table.
  for (const o of process.argv.includes("--budget-only") ? OPTIONS.slice(0, 3) : OPTIONS) {
    const recall = positives.filter((r) => r.verdict && reach(o, r.a, r.b)).length / positives.length;
    const recallHeld = heldOut.filter((r) => r.verdict && reach(o, r.a, r.b)).length / heldOut.length;
    if (o === OPTIONS[0]) base = recall;
    let hits = 0;
    for (let i = 0; i < rows.length; i++) for (let j = 0; j < rows.length; j++) if (i !== j && engineReach(o, rows[i]!.b, rows[j]!.a)) hits++;
    const perMillionPairs = (hits / (rows.length * (rows.length - 1))) * 1e6;
    const segRate = collisionRate(real.map((d) => d.segs), o.segs) * (o.segs === 1 ? 1 : 1);
    const lshRate = collisionRate(real.map((d) => d.lsh.get(bandingKey(o.banding))!), o.keys);
    const wRate = o.words === true ? wordRate : 0;
    const perMillionReal = (segRate + lshRate + wRate) * 1e6;
    console.log(
      `| ${o.name} | ${recall.toFixed(4)} (${(recall - base >= 0 ? "+" : "") + (recall - base).toFixed(4)}) / ${recallHeld.toFixed(4)} | ${perMillionPairs.toFixed(1)} | ${(segRate * 1e6).toFixed(2)} + ${(lshRate * 1e6).toFixed(2)} + ${(wRate * 1e6).toFixed(2)} = ${perMillionReal.toFixed(2)} | ${Math.round(perMillionReal * 50)} |`,
    );
  }
  keyBudgetTable(positives, heldOut, real, base);
}

/** Chance that two random texts share at least one key of their (variable-length) key lists: sharing pairs / all pairs. */
function postingsRate(keys: string[][]): number {
  const postings = new Map<string, number[]>();
  keys.forEach((list, i) => {
    for (const k of list) {
      const p = postings.get(k);
      if (p) p.push(i);
      else postings.set(k, [i]);
    }
  });
  let pairs = 0;
  keys.forEach((list, i) => {
    const found = new Set<number>();
    for (const k of list) for (const j of postings.get(k)!) if (j > i) found.add(j);
    pairs += found.size;
  });
  const n = keys.length;
  return pairs / ((n * (n - 1)) / 2);
}

/** Chance that a random text's lookup keys (`lookup[i]`) meet another random text's stored keys (`stored[j]`, j != i): reaching ordered pairs / all ordered pairs; `postingsRate` when the two lists are the same. */
function lookupRate(lookup: string[][], stored: string[][]): number {
  const postings = new Map<string, number[]>();
  stored.forEach((list, j) => {
    for (const k of list) {
      const p = postings.get(k);
      if (p) p.push(j);
      else postings.set(k, [j]);
    }
  });
  let pairs = 0;
  lookup.forEach((list, i) => {
    const found = new Set<number>();
    for (const k of list) for (const j of postings.get(k) ?? []) if (j !== i) found.add(j);
    pairs += found.size;
  });
  const n = stored.length;
  return pairs / (n * (n - 1));
}

/**
 * The key budget (NEARDUP_LSH_KEY_BUDGET, candidates/keys.ts) at N stored
 * documents, the default keys (two segments | lsh 16x3): a key's document
 * frequency at N is N x (its count among the real texts) / (real texts), the
 * plan takes keys alone from the rarest up within the budget, the others in
 * twos. Printed per N: end-to-end recall (as above; pessimistic: a pair's own
 * text, when it is among the real texts, counts towards its keys'
 * frequencies) and engine hits per lookup p50/p99 for 2,000 real texts as
 * lookups (N / real texts x the real texts the plan reaches, self apart),
 * and the same with the length bounds of the lookups that decide (core
 * length-bounds.ts: a text reached only through band keys counts when some
 * rule allows its length, or it shares a segment).
 */
function keyBudgetTable(positives: { a: { a: Analysis; segs: [string, string, string, string]; lsh: Map<string, string[]>; words: string[]; lookup: string[] }; b: { a: Analysis; segs: [string, string, string, string]; lsh: Map<string, string[]>; words: string[]; lookup: string[] }; verdict: boolean }[], heldOut: typeof positives, real: (typeof positives)[number]["a"][], base: number): void {
  const banding = "16x3";
  // --words: the plan and the reach take the word keys of lsh2 beside the band keys.
  const withWords = process.argv.includes("--words");
  const keysOf = (d: { lsh: Map<string, string[]>; words: string[] }): string[] => (withWords ? [...d.lsh.get(banding)!, ...d.words] : d.lsh.get(banding)!);
  // A lookup's keys: its stored keys, then (with --words) its lookup-only keys (spec §9.2).
  const lookupKeysOf = (d: { lsh: Map<string, string[]>; words: string[]; lookup: string[] }): string[] => (withWords ? [...keysOf(d), ...d.lookup] : keysOf(d));
  const budgets = (arg("budgets", "0,200")).split(",").map(Number);
  const counts = new Map<string, number>();
  const postings = new Map<string, number[]>();
  real.forEach((d, i) => {
    for (const k of keysOf(d)) {
      counts.set(k, (counts.get(k) ?? 0) + 1);
      const list = postings.get(k);
      if (list) list.push(i);
      else postings.set(k, [i]);
    }
  });
  const segPostings = new Map<string, number[]>();
  real.forEach((d, i) => d.segs.forEach((v, s) => {
    const key = `${s}=${v}`;
    const list = segPostings.get(key);
    if (list) list.push(i);
    else segPostings.set(key, [i]);
  }));
  const T = real.length;
  /** The service's plan (planKeys) with each key's frequency scaled to N (less the lookup's own text when `self`). */
  const plan = (keys: string[], n: number, budget: number, self = 0) => {
    const p = planKeys(keys, new Map(keys.map((k) => [k, Math.max(0, (counts.get(k) ?? 0) - self) * (n / T)])), budget);
    return { alone: new Set(p.alone), paired: p.paired };
  };
  /** The service's reach rule: two segments within 3 bits, else the LSH rule of a plan (probe.ts `reaches`). */
  const reachWith = (p: { alone: Set<string> }, x: { a: Analysis; segs: [string, string, string, string]; lsh: Map<string, string[]>; words: string[]; lookup: string[] }, y: typeof x) =>
    (hamming(x.a.simhash, y.a.simhash) <= 3 && sharedSegments(x.segs, y.segs) >= 2) ||
    reaches({ simhash: x.a.simhash, radius: -1, lsh: lookupKeysOf(x), alone: p.alone }, { simhash: y.a.simhash, lsh: keysOf(y) });
  console.log(`\n### Key budget at N (seg>=2 | lsh 16x3${withWords ? " + words (lsh2)" : ""}; frequencies scaled from ${T} real texts)\n`);
  console.log("| N | budget | end-to-end recall (all / held out) | est. engine hits per lookup p50 / p99 (segments + keys) | the same with length bounds (recall / hits p50 / p99) |");
  console.log("|---|---|---|---|---|");
  const options = DEFAULT_VERDICT_OPTIONS;
  /** A text reached only through band keys, under the length bounds of a lookup of `x`: a rule allows its length, or they share a segment. */
  const lengthOk = (x: { a: Analysis; segs: [string, string, string, string] }, y: typeof x) => lengthAllowed(candidateLengths(options, x.a.length), y.a.length) || sharedSegments(x.segs, y.segs) >= 1;
  const sample = real.filter((_, i) => i % Math.max(1, Math.floor(T / 2000)) === 0).slice(0, 2000);
  for (const n of [1e6, 1e7, 5e7]) {
    for (const budget of budgets) {
      const recallOf = (rows: typeof positives, bounds = false) =>
        rows.filter((r) => r.verdict && reachWith(plan(lookupKeysOf(r.b), n, budget), r.b, r.a) && (!bounds || (hamming(r.b.a.simhash, r.a.a.simhash) <= 3 && sharedSegments(r.b.segs, r.a.segs) >= 2) || lengthOk(r.b, r.a))).length / rows.length;
      const recall = recallOf(positives);
      const hitsWith = (bounds: boolean) => sample.map((d) => {
        const self = real.indexOf(d);
        // Its own text is among the real texts: its stored keys' counts less one (its lookup-only keys are not stored).
        const own = new Set(keysOf(d));
        const lk = lookupKeysOf(d);
        const p0 = planKeys(lk, new Map(lk.map((k) => [k, Math.max(0, (counts.get(k) ?? 0) - (own.has(k) ? 1 : 0)) * (n / T)])), budget);
        const p = { alone: new Set(p0.alone), paired: p0.paired };
        const reached = new Set<number>();
        const shared = new Map<number, number>();
        for (const k of lookupKeysOf(d)) for (const j of postings.get(k) ?? []) {
          if (j === self || (bounds && !lengthOk(d, real[j]!))) continue;
          if (p.alone.has(k)) reached.add(j);
          else shared.set(j, (shared.get(j) ?? 0) + 1);
        }
        for (const [j, c] of shared) if (c >= 2) reached.add(j);
        const segShared = new Map<number, number>();
        d.segs.forEach((v, s) => { for (const j of segPostings.get(`${s}=${v}`) ?? []) if (j !== self) segShared.set(j, (segShared.get(j) ?? 0) + 1); });
        for (const [j, c] of segShared) if (c >= 2) reached.add(j);
        return (reached.size * n) / (T - 1);
      }).sort((x, y) => x - y);
      const q = (hits: number[], f: number) => Math.round(hits[Math.min(hits.length - 1, Math.floor(f * hits.length))]!);
      const all = hitsWith(false);
      const bounded = hitsWith(true);
      console.log(
        `| ${n.toLocaleString("en")} | ${budget} | ${recall.toFixed(4)} (${(recall - base >= 0 ? "+" : "") + (recall - base).toFixed(4)}) / ${recallOf(heldOut).toFixed(4)} | ${q(all, 0.5)} / ${q(all, 0.99)} | ${recallOf(positives, true).toFixed(4)} / ${q(bounded, 0.5)} / ${q(bounded, 0.99)} |`,
      );
    }
  }
}

await main();
