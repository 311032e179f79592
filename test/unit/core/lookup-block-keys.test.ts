// Lookup block keys (docs/fingerprint-spec.md §9.2, "Lookup-only keys"): the block keys a stored text up to two
// units longer or shorter would have, made at lookup time only, so that units inserted or deleted plus replacements
// are found with the stored keys unchanged.
//
// Guaranteed (first property): a stored text S of n units with block keys (14 <= n, at most 70 code points) and a
// query Q made from S by at most TWO units inserted or deleted (any mix: one or two insertions, one or two
// deletions, one of each) and r units replaced, with E = (units inserted or deleted) + r <= floor(3 n / 20)
// (= blockCount(n) - 1) edits in all, share a key: blockKeys(Q) + lookupBlockKeys(Q), what a lookup of Q takes, and
// blockKeys(S) (Q's own block key when the units inserted and deleted cancel out before and after the block). Replacements alone are the
// stored block keys' case (block-keys.test.ts). With n the stored text's units this is every pair the tiny edit
// rule (edit similarity >= 0.85: at most floor(0.15 max(n, m)) edits) accepts with at most two units inserted or
// deleted, except where Q is the longer text and floor(3 m / 20) > floor(3 n / 20) with the rule's last edit used
// (e.g. one inserted and two replaced, 19 -> 20 characters). Three or more inserted or deleted are not covered.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analysisData, blockCount, blockKey, blockKeys, lookupBlockKeys, lookupKeysOf, LOOKUP_BLOCK_KEYS_MAX_INDELS, WORD_KEYS_MAX_LENGTH } from "../../../src/core/index.js";
import { lookupBlockKeysOfUnits } from "../../../src/core/block-keys.js";
import { packAnalysis, unpackAnalysis } from "../../../src/workers/protocol.js";
import { probeOf, reaches } from "../../../src/service/candidates/index.js";
import { defaultFingerprinter } from "./helpers.js";

const shared = (x: readonly string[], y: readonly string[]): number => x.filter((k) => y.includes(k)).length;
/** What a lookup of a short text takes beside its band and word keys: its own block keys and its lookup block keys. */
const lookupSide = (text: string): string[] => [...blockKeys(text), ...lookupBlockKeys(text)];
/** Common Han characters, few enough that random texts repeat some of them. */
const HAN = Array.from("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长");
const han = fc.constantFrom(...HAN);

/** A stored text of n Han units and a query made from it by up to two units inserted or deleted and replacements, E <= floor(3n/20) edits. */
const editedPair = fc.integer({ min: 14, max: WORD_KEYS_MAX_LENGTH }).chain((n) =>
  fc.integer({ min: 1, max: Math.min(2, Math.floor((3 * n) / 20)) }).chain((indels) =>
    fc.record({
      stored: fc.array(han, { minLength: n, maxLength: n }),
      // Per inserted or deleted unit: insert (true) or delete, and where (a fraction of the text at that point).
      shifts: fc.array(fc.tuple(fc.boolean(), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), han), { minLength: indels, maxLength: indels }),
      replaced: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 0, maxLength: Math.floor((3 * n) / 20) - indels }),
      by: fc.array(han, { minLength: Math.floor((3 * n) / 20), maxLength: Math.floor((3 * n) / 20) }),
    }),
  ),
);

function queryOf(p: { stored: string[]; shifts: [boolean, number, string][]; replaced: number[]; by: string[] }): string[] {
  const units = [...p.stored];
  // Replacements first, on the stored text's positions (a replaced unit never equals the one it replaces).
  p.replaced.forEach((at, k) => (units[at] = p.by[k] === units[at] ? "爱" : p.by[k]!));
  for (const [insert, where, unit] of p.shifts) {
    if (insert) units.splice(Math.floor(where * (units.length + 1)), 0, unit);
    else units.splice(Math.floor(where * units.length), 1);
  }
  return units;
}

describe("lookup block keys", () => {
  it("a query with one or two units inserted or deleted and replacements, floor(3n/20) edits in all, shares a lookup key with the stored text's block keys", () => {
    fc.assert(
      fc.property(editedPair, (p) => {
        const stored = blockKeys(p.stored.join(""));
        const query = lookupSide(queryOf(p).join(""));
        expect(stored).toHaveLength(blockCount(p.stored.length));
        expect(shared(query, stored)).toBeGreaterThan(0);
      }),
      { seed: 20261207, numRuns: 5000 },
    );
  });

  it("holds at the edges: edits at the first and last units, texts of 14 to 70 units and their 12 to 72-unit copies", () => {
    expect(LOOKUP_BLOCK_KEYS_MAX_INDELS).toBe(2);
    for (const n of [14, 15, 19, 20, 40, 69, 70]) {
      const units = Array.from({ length: n }, (_, i) => HAN[(i * 7) % HAN.length]!);
      const budget = Math.floor((3 * n) / 20);
      const kinds: boolean[][] = [[true], [false], [true, true], [false, false], [true, false]];
      for (const kinds_ of kinds) {
        for (const where of [0, 0.5, 0.999]) {
          const most = budget - kinds_.length;
          for (const replaced of [[], Array.from({ length: most }, (_, k) => k), Array.from({ length: most }, (_, k) => n - 1 - k)]) {
            const query = queryOf({ stored: units, shifts: kinds_.map((insert) => [insert, where, "爱"]), replaced, by: replaced.map(() => "爱") });
            expect(shared(lookupSide(query.join("")), blockKeys(units.join(""))), `${n} ${kinds_.join()} ${where} ${replaced.join()}`).toBeGreaterThan(0);
          }
        }
      }
    }
  });

  it("one inserted or deleted unit needs only the keys of n' = m - 1 and m + 1 (indels = 1): the guarantee with one", () => {
    fc.assert(
      fc.property(editedPair.filter((p) => p.shifts.length === 1), (p) => {
        expect(shared(lookupBlockKeysOfUnits(queryOf(p), 1), blockKeys(p.stored.join("")))).toBeGreaterThan(0);
      }),
      { seed: 11, numRuns: 1000 },
    );
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
    const repeated = fp.analyze("啊".repeat(30));
    expect(new Set(lookupKeysOf(repeated)).size).toBe(lookupKeysOf(repeated).length); // each key once
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

  it("cost: 3 to 109 keys a text of 12 to 72 units (4 to 40 with one unit inserted or deleted), none outside", () => {
    const counts: number[] = [];
    for (let m = 1; m <= 80; m++) {
      const text = Array.from({ length: m }, (_, i) => HAN[(i * 13 + 5) % HAN.length]!).join("");
      const keys = lookupBlockKeys(text);
      counts.push(keys.length);
      // No repeated units here, so no duplicate keys: the count is the rule's.
      let rule = 0;
      for (let n = m - 2; n <= Math.min(m + 2, WORD_KEYS_MAX_LENGTH); n++) {
        const b = blockCount(n);
        if (n < 1 || b < 3) continue;
        for (let i = 0; i < b; i++) for (let t = -i; t <= i; t++) if (Math.abs(m - n - t) <= b - 1 - i && Math.abs(t) + Math.abs(m - n - t) <= 2 && !(m === n && t === 0)) rule++;
      }
      expect(keys.length, `${m}`).toBe(m <= WORD_KEYS_MAX_LENGTH + 2 ? rule : 0);
    }
    expect(counts.slice(0, 11).every((c) => c === 0)).toBe(true); // under 12 units: none
    expect(counts.slice(11, 14)).toEqual([3, 7, 9]); // 12, 13, 14 units
    expect(Math.max(...counts)).toBe(109);
    expect(counts.slice(WORD_KEYS_MAX_LENGTH + 2).every((c) => c === 0)).toBe(true); // over 72 code points: none
  });

  it("are the rule's keys, each `blockKey(n', i, units)` of the spec, for units of any script and length", () => {
    const unit = fc.oneof(han, fc.constantFrom("a", "word", "naïve", "日本語", "😀x", "1,000", "长", "𠀋"));
    fc.assert(
      fc.property(fc.array(unit, { minLength: 10, maxLength: 75 }), fc.integer({ min: 0, max: 3 }), (units, indels) => {
        const m = units.length;
        const want = new Set<string>();
        for (let n = m - indels; n <= Math.min(m + indels, WORD_KEYS_MAX_LENGTH); n++) {
          const b = blockCount(n);
          if (n < 1 || b < 3) continue;
          for (let i = 0; i < b; i++) {
            const s0 = Math.floor((i * n) / b);
            const e0 = Math.floor(((i + 1) * n) / b);
            for (let t = -i; t <= i; t++) {
              if (Math.abs(m - n - t) > b - 1 - i || Math.abs(t) + Math.abs(m - n - t) > indels || (m === n && t === 0)) continue;
              want.add(blockKey(n, i, units.slice(s0 + t, e0 + t)));
            }
          }
        }
        expect(new Set(lookupBlockKeysOfUnits(units, indels))).toEqual(want);
      }),
      { seed: 5, numRuns: 300 },
    );
  });

  it("two unrelated texts rarely share one", () => {
    fc.assert(
      fc.property(fc.array(han, { minLength: 12, maxLength: 72 }), fc.array(han, { minLength: 14, maxLength: 70 }), (x, y) => {
        expect(shared(lookupBlockKeys(x.join("")), blockKeys(y.join("")))).toBe(0);
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});
