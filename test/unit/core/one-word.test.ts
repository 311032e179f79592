// Issue 14: one word replaced in a tiny text (rule <bucket>.word), the same from texts and from sketches.
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, DEFAULT_VERDICT_OPTIONS, oneWord, oneWordSwap, validateVerdictOptions } from "../../../src/core/index.js";
import type { Fingerprinter, VerdictOptions } from "../../../src/core/index.js";
import { compareSketches, sketchOf } from "../../../src/core/sketch.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

const withoutWordRule: VerdictOptions = {
  ...DEFAULT_VERDICT_OPTIONS,
  buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, minWordShare: null })),
};

describe("one-word rule (<bucket>.word)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("a tiny text with one word replaced inside is a duplicate; the other rules alone miss it", async () => {
    const off = await createFingerprinter({ verdict: withoutWordRule });
    for (const [a, b] of [
      ["are you a little", "are couples a little"],
      ["1) claim your $25", "1) binary your $25"],
      ["we offer some of the", "we microsite some of the"],
    ] as const) {
      const v = fp.compare(a, b);
      expect(v, `${a} / ${b}`).toMatchObject({ duplicate: true, rule: "tiny.word", vetoed: null });
      expect(v.wordShare).toBeGreaterThanOrEqual(0.6);
      expect(off.compare(a, b), `${a} / ${b} without the rule`).toMatchObject({ duplicate: false });
    }
  });

  it("texts that share only an opening, or only a closing mark, or differ in two words, are not one-word swaps", () => {
    for (const [a, b] of [
      ["i've never just", "i've never look"], // differing ending: no common ending
      ["tim> about richie>", "tim> about paul>"], // the common ending is one '>': no letter or digit
      ["we offer some of the", "we sell many of the"], // two words replaced
    ] as const) {
      expect(oneWordSwap(fp.analyze(a).normalized, fp.analyze(b).normalized), `${a} / ${b}`).toBeNull();
      expect(fp.compare(a, b).rule, `${a} / ${b}`).not.toBe("tiny.word");
    }
  });

  it("one word: no whitespace, at most 20 code units and 4 Han characters; punctuation may cling", () => {
    expect(oneWord("dioxide,", 0, 8)).toBe(true);
    expect(oneWord("", 0, 0)).toBe(true);
    expect(oneWord("two words", 0, 9)).toBe(false);
    expect(oneWord("a".repeat(21), 0, 21)).toBe(false);
    expect(oneWord("白首相逢", 0, 4)).toBe(true);
    expect(oneWord("白首相逢淚", 0, 5)).toBe(false);
  });

  it("compareSketches gives decide's verdict on these pairs (the texts are inline in tiny sketches)", () => {
    for (const [x, y] of [
      ["are you a little", "are couples a little"],
      ["i've never just", "i've never look"],
      ["tim> about richie>", "tim> about paul>"],
    ] as const) {
      const a = fp.analyze(x);
      const b = fp.analyze(y);
      const expected = fp.compare(a, b);
      const got = compareSketches({ simhash: a.simhash, sketch: sketchOf(a) }, { simhash: b.simhash, sketch: sketchOf(b) }, DEFAULT_VERDICT_OPTIONS);
      expect(got).toMatchObject({ duplicate: expected.duplicate, rule: expected.rule, wordShare: expected.wordShare, vetoed: expected.vetoed });
    }
  });

  it("validates minWordShare, naming the field", () => {
    const buckets = DEFAULT_VERDICT_OPTIONS.buckets.map((b, i) => (i === 0 ? { ...b, minWordShare: 1.5 } : b));
    expect(thrown(() => validateVerdictOptions({ buckets })).field).toBe("verdict.buckets[0].minWordShare");
  });
});
