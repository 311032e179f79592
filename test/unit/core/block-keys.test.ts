// Block keys of short texts (LSH scheme lsh3, docs/fingerprint-spec.md §9.2; audit 22, F1).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockCount, blockKey, blockKeys, DEFAULT_LSH_OPTIONS, WORD_KEYS_MAX_LENGTH, wordUnits } from "../../../src/core/index.js";
import { probeOf, reaches } from "../../../src/service/candidates/index.js";
import { defaultFingerprinter } from "./helpers.js";

const bands = DEFAULT_LSH_OPTIONS.bands;
const shared = (x: readonly string[], y: readonly string[]): number => x.filter((k) => y.includes(k)).length;
/** Common Han characters, few enough that random texts repeat some of them. */
const HAN = Array.from("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长");
const han = fc.constantFrom(...HAN);

describe("block keys", () => {
  it("two texts of n single-character units with up to floor(3n/20) characters replaced in place share a block key", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 14, max: WORD_KEYS_MAX_LENGTH }).chain((n) =>
          fc.tuple(
            fc.array(han, { minLength: n, maxLength: n }),
            fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: Math.floor((3 * n) / 20) }),
            fc.array(han, { minLength: Math.floor((3 * n) / 20), maxLength: Math.floor((3 * n) / 20) }),
          ),
        ),
        ([units, at, by]) => {
          const other = [...units];
          at.forEach((p, k) => (other[p] = by[k] === units[p] ? "爱" : by[k]!));
          const a = blockKeys(units.join(""));
          const b = blockKeys(other.join(""));
          expect(a).toHaveLength(blockCount(units.length));
          expect(shared(a, b)).toBeGreaterThan(0);
        },
      ),
      { seed: 20261207, numRuns: 500 },
    );
  });

  it("a key holds the unit count and the block's place: texts of other lengths, or a block moved, share none", () => {
    fc.assert(
      fc.property(fc.array(han, { minLength: 14, maxLength: WORD_KEYS_MAX_LENGTH - 1 }), han, (units, extra) => {
        const a = blockKeys(units.join(""));
        expect(shared(a, blockKeys([...units, extra].join("")))).toBe(0);
        expect(shared(a, blockKeys([extra, ...units].join("")))).toBe(0);
      }),
      { seed: 7, numRuns: 300 },
    );
    expect(blockKey(14, 0, ["a"])).not.toBe(blockKey(15, 0, ["a"]));
    expect(blockKey(14, 0, ["a"])).not.toBe(blockKey(14, 1, ["a"]));
  });

  it("are p: and 16 hex digits, one per block, for texts of 14 units up to 70 code points only", () => {
    expect(blockCount(13)).toBe(2);
    expect(blockCount(14)).toBe(3);
    expect(blockCount(20)).toBe(4);
    expect(blockKeys(HAN.slice(0, 13).join(""))).toEqual([]);
    expect(blockKeys(HAN.slice(0, 14).join(""))).toHaveLength(3);
    const at70 = HAN.slice(0, 70).join("");
    expect(blockKeys(at70)).toHaveLength(11);
    expect(blockKeys(at70 + "我")).toEqual([]);
    for (const k of blockKeys(at70)) expect(k).toMatch(/^p:[0-9a-f]{16}$/);
    // Words are units: fourteen words of a short English text.
    expect(wordUnits("a b c d e f g h i j k l m n")).toHaveLength(14);
    expect(blockKeys("a b c d e f g h i j k l m n")).toHaveLength(3);
    expect(blockKeys("")).toEqual([]);
  });

  it("audit 22's pairs: the verdict accepts them, no band or word key is shared, a block key is, and the lookup reaches the stored text", async () => {
    const fp = await defaultFingerprinter();
    const pairs: [string, string][] = [
      ["今天上海文化，苹果经济创新啊", "今天哦海文化，苹啦经济创新啊"],
      ["工作报告妈妈，图书馆朋友健康啊", "工作报告妈妈，呀书馆朋友吧康啊"],
      ["散步创新今天，旅游电影历史啊", "散步创新今天，啦吗电影历史啊"],
      ["国大上不位由流个然知回日最四些根利大基而", "国大上不位鑫流个然知回日淼四些根利大基而"],
    ];
    for (const [x, y] of pairs) {
      const a = fp.analyze(x);
      const b = fp.analyze(y);
      expect(fp.compare(a, b).duplicate, `${x} / ${y}: verdict`).toBe(true);
      expect(a.lshScheme).toBe("lsh3-16x3");
      const before = (keys: string[]) => keys.filter((k) => !k.startsWith("p:"));
      expect(shared(before(a.lsh), before(b.lsh)), `${x} / ${y}: band and word keys`).toBe(0);
      expect(shared(a.lsh, b.lsh), `${x} / ${y}: block keys`).toBeGreaterThan(0);
      // The service's reach rule, with the simhashes far apart (not through the segments).
      const far = { hi: ~b.simhash.hi >>> 0, lo: ~b.simhash.lo >>> 0 };
      expect(reaches(probeOf(b, 3), { simhash: far, lsh: a.lsh, lshScheme: a.lshScheme }), `${x} / ${y}: reach`).toBe(true);
      // A stored lsh2 document has no block keys: it is reached through its band and word keys only.
      expect(reaches(probeOf(b, 3), { simhash: far, lsh: a.lsh.slice(0, bands), lshScheme: "lsh2-16x3" })).toBe(false);
    }
  });
});
