import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_VERDICT_OPTIONS, FINGERPRINT_VERSION } from "../../../src/core/index.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { defaultFingerprinter } from "./helpers.js";

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

  it("the original short pair is a duplicate by edit similarity", () => {
    const v = fp.compare("你妈妈喊你回家吃饭哦，回家罗回家罗", "你妈妈叫你回家吃饭啦，回家罗回家罗");
    expect(v).toMatchObject({ duplicate: true, rule: "short.edit", bucket: "short" });
    expect(v.editSimilarity).toBeCloseTo(15 / 17, 12);
  });

  it("unrelated short texts are not duplicates", () => {
    const v = fp.compare("今天天气很好，我们去公园散步吧", "股市大跌，投资者纷纷抛售手中的股票");
    expect(v.duplicate).toBe(false);
    expect(v.rule).toBeNull();
  });

  it("identical long texts are duplicates by simhash at distance 0", () => {
    const long = "自然语言处理是计算机科学领域与人工智能领域中的一个重要方向。".repeat(40);
    const v = fp.compare(long, long);
    expect(v).toMatchObject({ duplicate: true, rule: "long.simhash", distance: 0 });
    expect(v.cosine).toBeCloseTo(1, 12);
  });

  it("search radius follows the bucket", () => {
    expect(fp.searchRadius(10)).toBe(8);
    expect(fp.searchRadius(500)).toBe(6);
    expect(fp.searchRadius(5000)).toBe(3);
    expect(DEFAULT_VERDICT_OPTIONS.buckets.at(-1)!.maxLength).toBe(Infinity);
  });

  it("128-bit simhash is available as an option", async () => {
    const { createFingerprinter } = await import("../../../src/core/index.js");
    const f128 = await createFingerprinter({ simhash128: true });
    const a = f128.analyze("美国“51区”雇员称内部有9架飞碟");
    expect(a.hex128).toMatch(/^[0-9a-f]{32}$/);
    expect(a.hex128!.slice(0, 16)).toBe(a.hex);
  });
});
