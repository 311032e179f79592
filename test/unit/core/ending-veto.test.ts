// Issue 14 (third pass): tiny texts that share an opening and then end differently (veto <bucket>.ending).
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERDICT_OPTIONS, differentEnding, validateVerdictOptions } from "../../../src/core/index.js";
import type { Fingerprinter, VerdictOptions } from "../../../src/core/index.js";
import { compareSketches, sketchOf } from "../../../src/core/sketch.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

// Hard negatives of the quality benchmark (seeds 7 and 11) that the second pass flagged (tiny.jaccard / tiny.edit).
const DIFFERENT_ENDINGS: [string, string][] = [
  ["the only way to insure i'd just", "the only way to insure martin"],
  ["want to make shoul", "want to make i am"],
  ["dear fma , want i've", "dear fma , want *nod* i"],
  ["綿綿芳草綠,何處動深思。 葉葉歸邊騎,", "綿綿芳草綠,何處動深思。 牓前潛制淚,"],
  ["蜀國信難遇,楚鄉心更愁。我行同范蠡,師舉效 未得鳴珂謁漢宮", "蜀國信難遇,楚鄉心更愁。我行同范蠡,師舉效 鳴鞭晚日禁城東"],
];
// Edited copies whose last word was replaced: still duplicates (one word each side).
const LAST_WORD_REPLACED: [string, string][] = [
  ["gw> if you (and guido,", "gw> if you (and contained"],
  ["what are you talking", "what are you sacred"],
  ["this is the worst", "this is the noon"],
];

describe("different-ending veto (<bucket>.ending)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("a tiny pair that shares an opening and ends differently in more than one word is not a duplicate", () => {
    for (const [a, b] of DIFFERENT_ENDINGS) {
      expect(fp.compare(a, b), `${a} / ${b}`).toMatchObject({ duplicate: false, rule: null, vetoed: "tiny.ending" });
    }
  });

  it("one word replaced at the end is still a duplicate", () => {
    for (const [a, b] of LAST_WORD_REPLACED) {
      const v = fp.compare(a, b);
      expect(v.duplicate, `${a} / ${b}`).toBe(true);
      expect(v.vetoed).toBeNull();
    }
  });

  it("differentEnding: shared opening, no common ending, endings not both one word", () => {
    expect(differentEnding("want to make shoul", "want to make i am")).toBe(0);
    expect(differentEnding("this is the worst", "this is the noon")).toBeNull(); // one word each
    expect(differentEnding("are you a little", "are couples a little")).toBeNull(); // common ending
    expect(differentEnding("i know you want", "i know you want to")).toBeNull(); // an ending on one side only
    expect(differentEnding("abc def ghi", "xyz uvw rst")).toBeNull(); // no common opening
    expect(differentEnding("on fri: and more", "on fri: but less")).toBeCloseTo(0, 5);
  });

  it("is an option of the bucket, off when null; sketches give the same verdict", () => {
    const off: VerdictOptions = { ...DEFAULT_VERDICT_OPTIONS, buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, minEndingSimilarity: null })) };
    for (const [x, y] of DIFFERENT_ENDINGS) {
      const a = fp.analyze(x);
      const b = fp.analyze(y);
      expect(compareSketches({ simhash: a.simhash, sketch: sketchOf(a) }, { simhash: b.simhash, sketch: sketchOf(b) }, DEFAULT_VERDICT_OPTIONS)).toMatchObject({ duplicate: false, vetoed: "tiny.ending" });
      expect(compareSketches({ simhash: a.simhash, sketch: sketchOf(a) }, { simhash: b.simhash, sketch: sketchOf(b) }, off)).toMatchObject({ duplicate: true, vetoed: null });
    }
    const bad = { ...DEFAULT_VERDICT_OPTIONS, buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b, i) => (i === 0 ? { ...b, minEndingSimilarity: 2 } : b)) };
    expect(thrown(() => validateVerdictOptions(bad))).toMatchObject({ code: "INVALID_CONFIG", field: "verdict.buckets[0].minEndingSimilarity" });
  });
});
