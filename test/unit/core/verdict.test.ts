import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { bucketFor, DEFAULT_VERDICT_OPTIONS, FINGERPRINT_VERSION, segmentRadius, validateVerdictOptions } from "../../../src/core/index.js";
import { editSimilarityReaching } from "../../../src/core/verdict.js";
import { charCosine } from "../../../src/core/similarity/cosine.js";
import { editSimilarity } from "../../../src/core/similarity/levenshtein.js";
import type { Fingerprinter, VerdictOptions } from "../../../src/core/index.js";
import { defaultFingerprinter } from "./helpers.js";

/** The defaults with one rule switched off in every bucket. */
function without(rule: "maxDistance" | "minCosine" | "minEditSimilarity" | "minJaccard"): VerdictOptions {
  return { ...DEFAULT_VERDICT_OPTIONS, buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, [rule]: null })) };
}

const PARAGRAPH =
  "自然语言处理是计算机科学领域与人工智能领域中的一个重要方向。它研究能实现人与计算机之间用自然语言进行有效通信的各种理论和方法。" +
  "自然语言处理是一门融语言学、计算机科学、数学于一体的科学。因此，这一领域的研究将涉及自然语言，即人们日常使用的语言，" +
  "所以它与语言学的研究有着密切的联系，但又有重要的区别。自然语言处理并不是一般地研究自然语言，而在于研制能有效地实现自然语言通信的计算机系统，" +
  "特别是其中的软件系统。因而它是计算机科学的一部分。";

describe("fingerprinter and verdict", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("analyze returns the fingerprint in all forms", () => {
    const a = fp.analyze("美国“51区”雇员称内部有9架飞碟，曾看见灰色外星人");
    expect(a.version).toBe(FINGERPRINT_VERSION);
    expect(a.hex).toMatch(/^[0-9a-f]{16}$/);
    expect(a.segments.join("")).toBe(a.hex);
    expect(a.short).toBe(true);
    // Short texts carry bigram features (key: space + bigram) besides the words.
    expect(a.features.has(" 飞碟")).toBe(true);
    expect(a.vector.has(" 飞碟")).toBe(false);
  });

  it("the original 17-character pair is a duplicate by edit similarity; with the edit rule off it is not", async () => {
    const a = "你妈妈喊你回家吃饭哦，回家罗回家罗";
    const b = "你妈妈叫你回家吃饭啦，回家罗回家罗";
    const v = fp.compare(a, b);
    expect(v).toMatchObject({ duplicate: true, rule: "tiny.edit", bucket: "tiny", distance: 8, vetoed: null });
    expect(v.editSimilarity).toBeCloseTo(15 / 17, 12);
    expect(v.editSimilarity!).toBeGreaterThanOrEqual(0.85);
    // Two changed characters break most 3-grams of so short a text: Jaccard 0.4 < 0.45.
    expect(v.jaccard).toBeCloseTo(0.4, 12);
    const { createFingerprinter } = await import("../../../src/core/index.js");
    const jaccardOnly = await createFingerprinter({ verdict: without("minEditSimilarity") });
    expect(jaccardOnly.compare(a, b)).toMatchObject({ duplicate: false, rule: null });
  });

  it("a tiny pair with a changed character in a word is a duplicate by edit similarity", () => {
    // The changed character splits a word: cosine 0.41, edit similarity 15/16.
    const v = fp.compare("十年身事各如萍，白首相逢淚滿纓。", "蹔年身事各如萍，白首相逢淚滿纓。");
    expect(v).toMatchObject({ duplicate: true, rule: "tiny.edit", bucket: "tiny" });
    expect(v.cosine).toBeLessThan(0.7);
    expect(v.editSimilarity).toBeCloseTo(15 / 16, 12);
  });

  it("tiny.jaccard: two clauses swapped keep most 3-grams though edit similarity collapses", async () => {
    const v = fp.compare("苹果发布新款手机，电池续航大幅提升", "电池续航大幅提升，苹果发布新款手机");
    expect(v).toMatchObject({ duplicate: true, rule: "tiny.jaccard", bucket: "tiny" });
    expect(v.editSimilarity!).toBeLessThan(0.85);
    expect(v.jaccard!).toBeGreaterThanOrEqual(0.45);
    const { createFingerprinter, reportedSimilarity } = await import("../../../src/core/index.js");
    expect(reportedSimilarity(v)).toBe(v.jaccard);
    const noJaccard = await createFingerprinter({ verdict: without("minJaccard") });
    expect(noJaccard.compare("苹果发布新款手机，电池续航大幅提升", "电池续航大幅提升，苹果发布新款手机")).toMatchObject({ duplicate: false });
  });

  it("unrelated tiny texts are not duplicates", () => {
    const v = fp.compare("今天天气很好，我们去公园散步吧", "股市大跌，投资者纷纷抛售手中的股票");
    expect(v).toMatchObject({ duplicate: false, rule: null, bucket: "tiny" });
  });

  it("a medium pair with four reworded phrases is a duplicate by edit similarity, not simhash", () => {
    const b = PARAGRAPH.replace("重要方向", "关键方向")
      .replace("各种理论和方法", "种种理论与方法")
      .replace("密切的联系", "紧密的联系")
      .replace("特别是", "尤其是");
    const v = fp.compare(PARAGRAPH, b);
    expect(v).toMatchObject({ duplicate: true, rule: "medium.edit", bucket: "medium" });
    expect(v.distance).toBeGreaterThan(3);
    expect(v.editSimilarity!).toBeGreaterThanOrEqual(0.75);
  });

  it("a medium pair with its sentences reversed is a duplicate by simhash although edit similarity is low", () => {
    const v = fp.compare(PARAGRAPH, PARAGRAPH.split("。").reverse().join("。"));
    expect(v).toMatchObject({ duplicate: true, rule: "medium.simhash", bucket: "medium" });
    expect(v.editSimilarity!).toBeLessThan(0.75);
  });

  it("identical long texts are duplicates by simhash at distance 0", () => {
    const long = "自然语言处理是计算机科学领域与人工智能领域中的一个重要方向。".repeat(40);
    const v = fp.compare(long, long);
    expect(v).toMatchObject({ duplicate: true, rule: "long.simhash", bucket: "long", distance: 0, editSimilarity: 1 });
    expect(v.cosine).toBeCloseTo(1, 12);
  });

  it("huge texts (5,000+ code points) are judged without edit distance", () => {
    const huge = "自然语言处理是计算机科学领域与人工智能领域中的一个重要方向。".repeat(180);
    const v = fp.compare(huge, huge);
    expect(v).toMatchObject({ duplicate: true, rule: "huge.simhash", bucket: "huge", distance: 0, editSimilarity: null, charCosine: null });
  });

  it("buckets and search radii follow the shorter text's length", () => {
    const at = (n: number) => [bucketFor(DEFAULT_VERDICT_OPTIONS, n).name, fp.searchRadius(n)];
    expect([1, 49, 50, 199, 200, 999, 1000, 4999, 5000, 1e6].map(at)).toEqual([
      ["tiny", 3], ["tiny", 3], ["short", 3], ["short", 3], ["medium", 3], ["medium", 3],
      ["long", 3], ["long", 3], ["huge", 3], ["huge", 3],
    ]);
  });

  it("the defaults are valid, edit distance stays below 5,000 code points, and each radius is the widest of its lookup cost", () => {
    expect(() => validateVerdictOptions(DEFAULT_VERDICT_OPTIONS)).not.toThrow();
    expect(DEFAULT_VERDICT_OPTIONS.buckets.at(-1)!.maxLength).toBe(Infinity);
    for (const b of DEFAULT_VERDICT_OPTIONS.buckets) {
      if (b.minEditSimilarity !== null) expect(b.maxLength).toBeLessThanOrEqual(5000);
      // radius + 1 would probe more segment values; radius itself probes no more than radius - (radius % 4).
      expect(segmentRadius(b.searchRadius + 1)).toBeGreaterThan(segmentRadius(b.searchRadius));
      expect(b.maxDistance ?? 0).toBeLessThanOrEqual(b.searchRadius);
    }
  });

  it("128-bit simhash is available as an option", async () => {
    const { createFingerprinter } = await import("../../../src/core/index.js");
    const f128 = await createFingerprinter({ simhash128: true });
    const a = f128.analyze("美国“51区”雇员称内部有9架飞碟");
    expect(a.hex128).toMatch(/^[0-9a-f]{32}$/);
    expect(a.hex128!.slice(0, 16)).toBe(a.hex);
  });
});

/**
 * Issue 10: the quadratic edit distance is computed for the rule only when the
 * q-gram bound says it may reach the threshold; the reported measures
 * (`editSimilarity`, `charCosine`) are computed when read. Nothing observable
 * may change: the same verdicts, the same values.
 */
describe("edit distance only where the cheaper bound cannot decide", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("editSimilarityReaching is the exact similarity, or undefined only when that is below the threshold (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."天地玄黄宇宙洪荒日月盈昃 ab"), maxLength: 80 }), fc.string({ unit: fc.constantFrom(..."天地玄黄宇宙洪荒日月盈昃 ab"), maxLength: 80 }), fc.double({ min: 0, max: 1, noNaN: true }), (a, b, min) => {
        const exact = editSimilarity(a, b);
        const got = editSimilarityReaching(a, b, min);
        if (got === undefined) expect(exact).toBeLessThan(min);
        else expect(got).toBe(exact);
      }),
      { numRuns: 2000 },
    );
  });

  it("verdicts report the exact edit similarity and character cosine, and the edit rule fires exactly when it reaches its threshold (property)", () => {
    const base = PARAGRAPH.slice(0, 150);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(149), fc.constantFrom(..."天地玄黄宇宙洪荒。")), { maxLength: 60 }), fc.nat(100), (edits, cut) => {
        const chars = Array.from(base);
        for (const [i, c] of edits) chars[i] = c;
        const other = chars.join("").slice(0, 150 - (cut % 40));
        const a = fp.analyze(base);
        const b = fp.analyze(other);
        const v = fp.compare(a, b);
        const bucket = bucketFor(DEFAULT_VERDICT_OPTIONS, Math.min(a.length, b.length));
        if (v.editSimilarity === null) return;
        expect(v.editSimilarity).toBe(editSimilarity(a.normalized, b.normalized));
        expect(v.charCosine).toBe(charCosine(a.normalized, b.normalized));
        const earlier = (bucket.maxDistance !== null && v.distance <= bucket.maxDistance) || (bucket.minCosine !== null && v.cosine >= bucket.minCosine);
        if (!earlier && v.vetoed === null && v.editSimilarity >= bucket.minEditSimilarity!) expect(v.rule).toBe(`${bucket.name}.edit`);
        if (v.rule?.endsWith(".edit")) expect(v.editSimilarity).toBeGreaterThanOrEqual(bucket.minEditSimilarity!);
      }),
      { numRuns: 300 },
    );
  });
});
