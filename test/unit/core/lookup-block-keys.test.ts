// Lookup block keys (docs/fingerprint-spec.md §9.2, "Lookup-only keys"): the block keys a stored text one unit
// longer or shorter would have, made at lookup time only, so that one inserted or deleted unit plus replacements
// is found with the stored keys unchanged.
//
// Guaranteed (first property): a stored text S of n units with block keys (14 <= n, at most 70 code points) and a
// query Q made from S by exactly ONE unit inserted or deleted and r units replaced, 1 + r <= floor(3 n / 20)
// (= blockCount(n) - 1), share a key: lookupBlockKeys(Q) and blockKeys(S). With n the stored text's units, that
// is every pair the tiny edit rule (edit similarity >= 0.85, at most floor(0.15 max(n, m)) edits) accepts with
// one unit inserted or deleted, except where floor(3 (n + 1) / 20) > floor(3 n / 20) and Q is the longer one
// with the most replacements the rule allows (an insertion and floor(3 (n + 1) / 20) - 1 replacements, e.g. 1 + 2
// in 19 -> 20). Replacements alone are the stored block keys' case (block-keys.test.ts); two or more units
// inserted or deleted are not covered.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analysisData, blockCount, blockKeys, lookupBlockKeys, lookupKeysOf, WORD_KEYS_MAX_LENGTH } from "../../../src/core/index.js";
import { packAnalysis, unpackAnalysis } from "../../../src/workers/protocol.js";
import { probeOf, reaches } from "../../../src/service/candidates/index.js";
import { defaultFingerprinter } from "./helpers.js";

const shared = (x: readonly string[], y: readonly string[]): number => x.filter((k) => y.includes(k)).length;
/** Common Han characters, few enough that random texts repeat some of them. */
const HAN = Array.from("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长");
const han = fc.constantFrom(...HAN);

/** A stored text of n Han units and a query made from it by one unit inserted or deleted and r <= floor(3n/20) - 1 replaced. */
const editedPair = fc.integer({ min: 14, max: WORD_KEYS_MAX_LENGTH }).chain((n) =>
  fc.record({
    stored: fc.array(han, { minLength: n, maxLength: n }),
    insert: fc.boolean(),
    // Where the unit is inserted (before unit `at`, 0..n) or which unit is deleted (0..n-1).
    at: fc.integer({ min: 0, max: n }),
    inserted: han,
    replaced: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 0, maxLength: Math.floor((3 * n) / 20) - 1 }),
    by: fc.array(han, { minLength: Math.floor((3 * n) / 20), maxLength: Math.floor((3 * n) / 20) }),
  }),
);

function queryOf(p: { stored: string[]; insert: boolean; at: number; inserted: string; replaced: number[]; by: string[] }): string[] {
  const units = [...p.stored];
  // Replacements first, on the stored text's positions (a replaced unit never equals the one it replaces).
  p.replaced.forEach((at, k) => (units[at] = p.by[k] === units[at] ? "爱" : p.by[k]!));
  if (p.insert) units.splice(p.at, 0, p.inserted);
  else units.splice(Math.min(p.at, units.length - 1), 1);
  return units;
}

describe("lookup block keys", () => {
  it("a query with one unit inserted or deleted and up to floor(3n/20) - 1 replaced shares a lookup key with the stored text's block keys", () => {
    fc.assert(
      fc.property(editedPair, (p) => {
        const stored = blockKeys(p.stored.join(""));
        const query = lookupBlockKeys(queryOf(p).join(""));
        expect(stored).toHaveLength(blockCount(p.stored.length));
        expect(shared(query, stored)).toBeGreaterThan(0);
      }),
      { seed: 20261207, numRuns: 3000 },
    );
  });

  it("holds at the edges: edits at the first and last units, a 70-unit text and its 71-unit insertion, a 14-unit text and its 13-unit deletion", () => {
    for (const n of [14, 15, 19, 20, 40, 69, 70]) {
      const units = Array.from({ length: n }, (_, i) => HAN[(i * 7) % HAN.length]!);
      const most = Math.floor((3 * n) / 20) - 1;
      for (const insert of [true, false]) {
        for (const at of [0, 1, n - 1, n]) {
          for (const replaced of [[], Array.from({ length: most }, (_, k) => k), Array.from({ length: most }, (_, k) => n - 1 - k)]) {
            const query = queryOf({ stored: units, insert, at, inserted: "爱", replaced, by: replaced.map(() => "爱") });
            expect(shared(lookupBlockKeys(query.join("")), blockKeys(units.join(""))), `${n} ${insert} ${at} ${replaced.join()}`).toBeGreaterThan(0);
          }
        }
      }
    }
  });

  it("are never stored keys: the analysis's `lsh` is unchanged, the lookup keys ride beside it, and the reach rule takes them", async () => {
    const fp = await defaultFingerprinter();
    const stored = "音乐发展科技，下雨上海新闻，上海学校历史啊";
    const query = "音乐发哦科技，下雨上海新闻，上海吧学校历史啊"; // one replaced, one inserted (audit 22a)
    const s = fp.analyze(stored);
    const q = fp.analyze(query);
    expect(fp.compare(s, q).duplicate).toBe(true);
    expect(q.lookupLsh).toEqual(lookupBlockKeys(q.normalized));
    expect(q.lsh.some((k) => q.lookupLsh!.includes(k))).toBe(false);
    // The stored keys alone miss the pair; with the lookup keys the probe reaches the stored text, and not the other way.
    expect(shared(q.lsh, s.lsh)).toBe(0);
    expect(reaches({ simhash: q.simhash, radius: -1, lsh: q.lsh }, { simhash: s.simhash, lsh: s.lsh })).toBe(false);
    expect(reaches(probeOf(q, -1), { simhash: s.simhash, lsh: s.lsh })).toBe(true);
    expect(lookupKeysOf(q)).toEqual([...q.lsh, ...q.lookupLsh!]);
    // Also from the stored side: a lookup of the stored text reaches the edited copy stored (a deletion).
    expect(reaches(probeOf(s, -1), { simhash: q.simhash, lsh: q.lsh })).toBe(true);
  });

  it("travel with the analysis in the worker threads' packed form; an analysis without them (plain data, another sidecar's wire form) makes them again", async () => {
    const fp = await defaultFingerprinter();
    const a = fp.analyze("新闻电影公园，教育美食新闻，教育发展城市啊");
    expect(a.lookupLsh?.length).toBeGreaterThan(0);
    expect(analysisData(a).lookupLsh).toBeUndefined(); // not part of the record (the golden corpus digests it)
    expect(fp.fromData(unpackAnalysis(packAnalysis(a, false))).lookupLsh).toEqual(a.lookupLsh);
    const without = fp.fromData(analysisData(a));
    expect(without.lookupLsh).toBeUndefined();
    expect(lookupKeysOf(without)).toEqual(lookupKeysOf(a));
    // A long text has none, and its lookup keys are its keys.
    const long = fp.analyze("A text long enough to have band keys only, well past the seventy code points of the short texts that get word keys.");
    expect(long.lookupLsh).toBeUndefined();
    expect(lookupKeysOf(long)).toBe(long.lsh);
  });

  it("cost: at most 2 (blockCount(n') - 1) keys for each of n' = m - 1 and m + 1 with block keys, 4 to 40 a text", () => {
    const counts: number[] = [];
    for (let m = 1; m <= 80; m++) {
      const text = Array.from({ length: m }, (_, i) => HAN[(i * 13 + 5) % HAN.length]!).join("");
      const keys = lookupBlockKeys(text);
      const bound = [m - 1, m + 1].filter((n) => n <= WORD_KEYS_MAX_LENGTH && blockCount(n) >= 3).reduce((t, n) => t + 2 * (blockCount(n) - 1), 0);
      expect(keys.length, `${m}`).toBeLessThanOrEqual(bound);
      if (m <= WORD_KEYS_MAX_LENGTH + 1) expect(keys.length, `${m}`).toBe(bound); // no repeated units here, so no duplicate keys
      counts.push(keys.length);
    }
    expect(counts.slice(0, 12).every((c) => c === 0)).toBe(true); // under 13 units: none
    expect(counts[12]).toBe(4); // 13 units: those of a 14-unit stored text
    expect(Math.max(...counts)).toBe(40);
    expect(counts.slice(WORD_KEYS_MAX_LENGTH + 1).every((c) => c === 0)).toBe(true); // over 71 code points: none
  });

  it("two unrelated texts rarely share one", () => {
    fc.assert(
      fc.property(fc.array(han, { minLength: 13, maxLength: 71 }), fc.array(han, { minLength: 14, maxLength: 70 }), (x, y) => {
        expect(shared(lookupBlockKeys(x.join("")), blockKeys(y.join("")))).toBe(0);
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});
