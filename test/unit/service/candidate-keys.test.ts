/**
 * Selective LSH keys (issue 9, candidates/keys.ts): the plan that takes band
 * keys alone within a document budget, the reach rule that goes with it, and
 * the query clause that asks the engine for "two of the common keys".
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromHex, hex4, segmentValues } from "../../../src/core/fingerprint.js";
import { candidateQuery, fetchCandidates, KeyStatistics, planKeys, reaches } from "../../../src/service/candidates/index.js";
import type { Analysis } from "../../../src/core/fingerprinter.js";
import type { Engine } from "../../../src/engine/types.js";
import { createRng } from "../../../bench/quality/rng.js";
import { candidateLengths } from "../../../src/core/length-bounds.js";
import { DEFAULT_VERDICT_OPTIONS } from "../../../src/core/verdict.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { recordingGroupedHits } from "../../helpers/grouped-hits.js";

const scheme = { version: "nd1", lshScheme: "lsh1-16x3" };

describe("planKeys", () => {
  it("takes keys alone from the rarest up while their documents fit the budget", () => {
    const df = new Map([
      ["a", 150],
      ["b", 40],
      ["c", 30],
      ["d", 5000],
    ]);
    expect(planKeys(["a", "b", "c", "d", "e"], df, 200)).toEqual({ alone: ["e", "c", "b"], paired: ["a", "d"], pairedDocs: 5150 });
    expect(planKeys(["a", "b", "c", "d", "e"], df, 220)).toEqual({ alone: ["e", "c", "b", "a"], paired: ["d"], pairedDocs: 5000 });
  });

  it("takes every key alone with a budget of 0 (the rule off), whatever the frequencies", () => {
    expect(planKeys(["a", "b"], new Map([["a", 1e9]]), 0)).toEqual({ alone: ["a", "b"], paired: [], pairedDocs: 0 });
  });

  it("partitions the keys; alone keys hold at most the budget; every paired key is commoner than every alone one; keys no document holds are alone (property)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 20 }), fc.array(fc.nat(1000), { minLength: 20, maxLength: 20 }), fc.integer({ min: 1, max: 3000 }), (keys, dfs, budget) => {
        const df = new Map(keys.map((k, i) => [k, dfs[i]!]));
        const plan = planKeys(keys, df, budget);
        expect([...plan.alone, ...plan.paired].sort()).toEqual([...keys].sort());
        expect(plan.alone.reduce((s, k) => s + df.get(k)!, 0)).toBeLessThanOrEqual(budget);
        expect(plan.pairedDocs).toBe(plan.paired.reduce((s, k) => s + df.get(k)!, 0));
        const maxAlone = Math.max(0, ...plan.alone.map((k) => df.get(k)!));
        for (const k of plan.paired) {
          expect(df.get(k)!).toBeGreaterThan(0);
          expect(df.get(k)!).toBeGreaterThanOrEqual(maxAlone);
        }
      }),
    );
  });
});

describe("reaches with a key plan", () => {
  const far = fromHex("ffffffffffffffff");
  const probe = { simhash: fromHex("0000000000000000"), radius: 3, lsh: ["a", "b", "c"], alone: new Set(["a"]) };
  it("reaches through one alone key, or two keys of any kind, never one paired key alone", () => {
    expect(reaches(probe, { simhash: far, lsh: ["a"] })).toBe(true);
    expect(reaches(probe, { simhash: far, lsh: ["b"] })).toBe(false);
    expect(reaches(probe, { simhash: far, lsh: ["x", "c", "b"] })).toBe(true);
    expect(reaches(probe, { simhash: far, lsh: ["c", "x"] })).toBe(false);
    expect(reaches(probe, { simhash: far, lsh: undefined })).toBe(false);
    // Within the radius the keys do not matter.
    expect(reaches(probe, { simhash: fromHex("0000000000000007"), lsh: [] })).toBe(true);
    // Without a plan, one shared key reaches.
    expect(reaches({ ...probe, alone: undefined }, { simhash: far, lsh: ["b"] })).toBe(true);
  });
});

describe("candidateQuery with paired keys", () => {
  it("asks for two of the paired keys in one clause, keeps one clause per alone key, and still needs two segments", () => {
    const body = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: ["00:00000001"], pairedLsh: ["01:00000002", "02:00000003"], scheme, since: 0, size: 10 }) as {
      query: { bool: { should: Record<string, { should?: unknown[]; minimum_should_match?: number; filter?: unknown[] }>[] } };
    };
    const should = body.query.bool.should;
    expect(should).toHaveLength(2);
    expect(should[0]).toMatchObject({ bool: { minimum_should_match: 2 } });
    // The keys in one clause: the alone key, then the pair's, under one scheme filter.
    const keys = should[1]!.bool!;
    expect(keys.minimum_should_match).toBe(1);
    expect(keys.should![0]).toEqual({ constant_score: { filter: { term: { "neardup.lsh": "00:00000001" } }, boost: 1 } });
    const pair = (keys.should![1] as { bool: { should: unknown[]; minimum_should_match: number; filter?: unknown } }).bool;
    expect(pair.minimum_should_match).toBe(2);
    expect(pair.should).toEqual([
      { constant_score: { filter: { term: { "neardup.lsh": "01:00000002" } }, boost: 1 } },
      { constant_score: { filter: { term: { "neardup.lsh": "02:00000003" } }, boost: 1 } },
    ]);
    expect(pair.filter).toBeUndefined();
    expect(JSON.stringify(keys.filter)).toContain("lsh_scheme");
    // All keys paired: the segments still need two of four (the lookup has LSH keys).
    const allPaired = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: [], pairedLsh: ["01:00000002", "02:00000003"], scheme, since: 0, size: 10 }) as typeof body;
    expect(allPaired.query.bool.should[0]).toMatchObject({ bool: { minimum_should_match: 2 } });
    // One paired key can never be shared twice: no clause for it.
    const one = candidateQuery({ simhash: fromHex("0123456789abcdef"), radius: 3, lsh: ["00:00000001"], pairedLsh: ["01:00000002"], scheme, since: 0, size: 10 }) as typeof body;
    expect(one.query.bool.should).toHaveLength(2);
    expect(one.query.bool.should[1]!.bool!.should).toHaveLength(1);
  });
});

describe("KeyStatistics.wanted", () => {
  it("asks when fresh, skips while every lookup of the last minute drew under half the budget, asks again after a large one or a quiet minute", () => {
    let now = 1_000_000;
    const stats = new KeyStatistics({} as never, "i", 5000, () => now);
    expect(stats.wanted(200)).toBe(true);
    expect(stats.wanted(0)).toBe(false);
    stats.observe(40);
    expect(stats.wanted(200)).toBe(false);
    now += 30_000;
    stats.observe(120); // half the budget or more: on
    expect(stats.wanted(200)).toBe(true);
    now += 59_000;
    stats.observe(3); // the large one is still within the minute
    expect(stats.wanted(200)).toBe(true);
    now += 2_000;
    stats.observe(3); // the minute is over: the small one counts
    expect(stats.wanted(200)).toBe(false);
    now += 61_000; // a quiet minute: ask again
    expect(stats.wanted(200)).toBe(true);
  });
});

describe("KeyStatistics.speculative", () => {
  it("asks before the statistics while no plan of the last minute paired a key, and only when statistics are wanted", () => {
    let now = 1_000_000;
    const stats = new KeyStatistics({} as never, "i", 5000, () => now);
    expect(stats.speculative(200)).toBe(true); // fresh
    expect(stats.speculative(0)).toBe(false); // the rule off: no statistics, nothing to overlap
    stats.observe(250, true);
    expect(stats.speculative(200)).toBe(false);
    now += 59_000;
    stats.observe(150);
    expect(stats.speculative(200)).toBe(false);
    now += 2_000;
    expect(stats.speculative(200)).toBe(true);
  });
});

describe("speculative lookups", () => {
  const keys = ["00:00000001", "01:00000002", "02:00000003", "03:00000004"];
  // A common key (01) held by 300 documents that share nothing else; a near-duplicate shares 00, 02 and 03; "pair" shares 01 and 03.
  async function engineWithCommonKey(): Promise<MemoryEngine> {
    const engine = new MemoryEngine();
    await engine.createIndex("spec");
    const src = (id: string, lsh: string[]) => ({ text: id, neardup: { id, simhash: "ffffffffffffffff", seg0: "ffff", seg1: "ffff", seg2: "ffff", seg3: "ffff", lsh, lsh_scheme: "lsh2-16x3", status: "original", length: 10, version: "nd1", timestamp: new Date(1_000_000).toISOString() } });
    const ops: Record<string, unknown>[] = [];
    for (let i = 0; i < 300; i++) ops.push({ index: { _index: "spec", _id: `crowd${i}` } }, src(`crowd${i}`, ["01:00000002"]));
    ops.push({ index: { _index: "spec", _id: "near" } }, src("near", ["00:00000001", "02:00000003", "03:00000004"]));
    ops.push({ index: { _index: "spec", _id: "pair" } }, src("pair", ["01:00000002", "03:00000004"]));
    await engine.bulk(ops);
    await engine.refresh("spec");
    return engine;
  }
  const lookup = (lsh: string[]) => ({ analysis: { simhash: fromHex("0000000000000000"), lsh, version: "nd1", lshScheme: "lsh2-16x3" } as unknown as Analysis, time: 1_000_500, radius: 3, excludeId: undefined });
  const ids = (r: { candidates: { id: string }[] }) => r.candidates.map((c) => c.id).sort();

  it("send the first query beside the statistics request, not after it", async () => {
    const memory = await engineWithCommonKey();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const events: string[] = [];
    const engine = Object.create(memory) as Engine;
    engine.termDocFrequencies = async (...a) => (events.push("stats"), await gate, events.push("stats done"), memory.termDocFrequencies(...a));
    engine.search = async (r) => (events.push("search"), memory.search(r));
    const stats = new KeyStatistics(engine, "spec");
    const pending = fetchCandidates(engine, { index: "spec", textField: "text", windowMs: 10_000, maxCandidates: 1000, lshKeyBudget: 200, keyStatistics: stats }, [lookup(["00:00000001"])]);
    await new Promise((r) => setTimeout(r, 20));
    expect([...events].sort()).toEqual(["search", "stats"]); // both asked, the statistics not answered yet
    release();
    expect(ids((await pending)[0]!)).toEqual(["near"]);
  });

  it("give the planned candidates, single and grouped, when the plan pairs a key: the same as asking the statistics first", async () => {
    const engine = await engineWithCommonKey();
    const source = { index: "spec", textField: "text", windowMs: 10_000, maxCandidates: 1000, lshKeyBudget: 200 };
    const lookups = [lookup(keys), lookup(["00:00000001", "05:00000000"])];
    for (const maxCandidates of [1000, 50]) {
      // A fresh KeyStatistics speculates; once a plan paired a key, it asks the statistics first.
      const stats = new KeyStatistics(engine, "spec");
      expect(stats.speculative(200)).toBe(true);
      const single = await fetchCandidates(engine, { ...source, maxCandidates, keyStatistics: stats }, [lookups[0]!]);
      expect(stats.speculative(200)).toBe(false);
      const after = await fetchCandidates(engine, { ...source, maxCandidates, keyStatistics: stats }, [lookups[0]!]);
      const grouped = await fetchCandidates(engine, { ...source, maxCandidates, keyStatistics: new KeyStatistics(engine, "spec") }, lookups);
      const groupedAfter = await fetchCandidates(engine, { ...source, maxCandidates, keyStatistics: stats }, lookups);
      expect(ids(single[0]!)).toEqual(["near", "pair"]); // the crowd shares only the common key
      expect(single[0]!.pairedKeys).toBe(1);
      expect(ids(after[0]!)).toEqual(ids(single[0]!));
      expect(grouped.map(ids)).toEqual([["near", "pair"], ["near"]]);
      expect(groupedAfter.map(ids)).toEqual(grouped.map(ids));
    }
  });
});

/** Leaf queries of a query tree, as Lucene counts them against its clause limit (a `terms` query is one). */
function leaves(query: unknown): number {
  const q = query as Record<string, unknown>;
  if (q.bool) {
    const b = q.bool as Record<string, unknown[] | undefined>;
    return ["must", "should", "filter", "must_not"].reduce((n, k) => n + (b[k] ?? []).reduce((m: number, c) => m + leaves(c), 0), 0);
  }
  if (q.constant_score) return leaves((q.constant_score as { filter: unknown }).filter);
  return 1;
}

describe("grouped lookups", () => {
  it("keep every grouped query within the engines' default 1,024 clauses, with two-of-four segments, paired keys and length bounds for every lookup", async () => {
    const bodies: { query: unknown }[] = [];
    const engine = {
      resolveIndices: async (name: string) => [name],
      termDocFrequencies: async (_indices: readonly string[], _field: string, terms: readonly string[]) => new Map(terms.map((t) => [t, 1000])), // every key common: all paired
      msearch: async (requests: { body: { query: unknown } }[]) => {
        bodies.push(...requests.map((r) => r.body));
        return requests.map(() => ({ hits: { hits: [] }, _shards: { total: 1, successful: 1, failed: 0 } }));
      },
      search: async () => ({ hits: { hits: [] }, _shards: { total: 1, successful: 1, failed: 0 } }),
    } as unknown as Engine;
    const rng = createRng(11);
    const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[rng.int(16)]).join("");
    // Lengths spread over every bucket, with their length bounds: a band-key clause per length bin.
    const lookups = Array.from({ length: 600 }, (_, i) => {
      const length = 20 + rng.int(8000);
      return {
        analysis: { simhash: fromHex(hex(16)), lsh: Array.from({ length: 16 }, (_, b) => `${String(b).padStart(2, "0")}:${hex(8)}`), length, version: "nd1", lshScheme: "lsh2-16x3" } as unknown as Analysis,
        time: 1_000_000 + i,
        radius: 3,
        excludeId: undefined,
        lengths: candidateLengths(DEFAULT_VERDICT_OPTIONS, length),
      };
    });
    const results = await fetchCandidates(engine, { index: "groups", textField: "text", windowMs: 1000, maxCandidates: 1000, lshKeyBudget: 200 }, lookups);
    expect(results).toHaveLength(600);
    expect(bodies.length).toBeGreaterThan(1);
    for (const body of bodies) expect(leaves(body.query)).toBeLessThanOrEqual(1024);
    // Each lookup's four segment values are in one "two of four" clause of some group's query.
    const clauses = bodies.flatMap((b) => twoOfFourClauses(b.query));
    expect(clauses.length).toBeGreaterThan(0);
    for (const l of lookups) {
      const values = segmentValues(l.analysis.simhash).map(hex4);
      expect(clauses.some((c) => values.every((v, i) => c[i]!.has(v)))).toBe(true);
    }
  });

  it("merge the two-of-four segment clauses of a run of lookups, and keep only what each lookup's own clause reaches", async () => {
    const engine = new MemoryEngine();
    await engine.createIndex("runs");
    const fp = (hex: string) => fromHex(hex);
    const a = "1111222233334444";
    const b = "aaaa2223bbbbcccc"; // seg1 one bit from a's
    const lsh = (tag: string) => Array.from({ length: 16 }, (_, k) => `${String(k).padStart(2, "0")}:${tag}${k}`);
    const stored = (id: string, simhash: string) => {
      const [seg0, seg1, seg2, seg3] = segmentValues(fromHex(simhash)).map(hex4);
      return [{ index: { _index: "runs", _id: id } }, { text: "t", neardup: { id, simhash, seg0, seg1, seg2, seg3, lsh: lsh(id), lsh_list: Buffer.from(lsh(id).join(" ")).toString("base64"), lsh_scheme: "lsh2-16x3", status: "original", length: 10, version: "nd1", timestamp: new Date(1_000_000).toISOString() } }];
    };
    await engine.bulk([
      ...stored("near-a", "1111222233354445"), // seg0, seg1 of a (2 bits away): a's own clause reaches it
      ...stored("across", "1111222333324445"), // seg0 of a, seg1 of b, 3 bits from a but only one segment of a: neither lookup's own clause reaches it
    ]);
    await engine.refresh("runs");
    const lookup = (hex: string, i: number) => ({ analysis: { simhash: fp(hex), lsh: lsh(`q${i}`), version: "nd1", lshScheme: "lsh2-16x3" } as unknown as Analysis, time: 1_500_000, radius: 3, excludeId: undefined });
    const { engine: recording, hits } = recordingGroupedHits(engine);
    const source = { index: "runs", textField: "text", windowMs: 3_600_000, maxCandidates: 100 };
    const grouped = await fetchCandidates(recording, source, [lookup(a, 0), lookup(b, 1)]);
    expect(hits).toContain("across"); // the merged clause draws it...
    expect(grouped.map((r) => r.candidates.map((c) => c.id))).toEqual([["near-a"], []]); // ...and no lookup keeps it
    const alone = await Promise.all([lookup(a, 0), lookup(b, 1)].map(async (l) => (await fetchCandidates(engine, source, [l]))[0]!.candidates.map((c) => c.id)));
    expect(alone).toEqual([["near-a"], []]);
  });
});

/** The "two of four segments" clauses of a query tree, as each field's values (a `term` or `terms` per field, minimum_should_match 2). */
function twoOfFourClauses(query: unknown): Set<string>[][] {
  const q = query as Record<string, unknown>;
  if (!q.bool) return [];
  const b = q.bool as Record<string, unknown[] | undefined> & { minimum_should_match?: number };
  const should = (b.should ?? []) as Record<string, Record<string, string | string[]>>[];
  const fields = should.map((c) => Object.entries(c.term ?? c.terms ?? {})[0]);
  if (b.minimum_should_match === 2 && should.length === 4 && fields.every((f, i) => f?.[0] === `neardup.seg${i}`)) {
    return [fields.map((f) => new Set([f![1]].flat()))];
  }
  return ["must", "should", "filter", "must_not"].flatMap((k) => (b[k] ?? []).flatMap((c) => twoOfFourClauses(c)));
}
