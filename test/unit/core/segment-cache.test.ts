import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { cachedSegmenter, CPPJIEBA_SEPARATORS } from "../../../src/core/segment-cache.js";
import { normalize } from "../../../src/core/index.js";
import type { HanSegmenter } from "../../../src/core/index.js";
import * as jieba from "nodejs-jieba";
import { loadTangPoems } from "../../../bench/corpus.js";

/** A segmenter that cuts at the separators and then into characters pairs, counting its calls. */
function pairs(): { segment: HanSegmenter; calls: string[] } {
  const calls: string[] = [];
  const segment = (text: string): string[] => {
    calls.push(text);
    const out: string[] = [];
    for (const part of text.split(/([ \n。])/u)) {
      if (part === "") continue;
      if (/^[ \n。]$/u.test(part)) out.push(part);
      else for (let i = 0; i < part.length; i += 2) out.push(part.slice(i, i + 2));
    }
    return out;
  };
  return { segment, calls };
}

describe("cachedSegmenter", () => {
  it("answers repeated pieces from the cache and cuts the misses of one text in one call", () => {
    const { segment, calls } = pairs();
    const cached = cachedSegmenter(segment, { separators: " \n。", joiner: "\n" });
    expect(cached("春眠不觉晓。处处闻啼鸟 abc")).toEqual(segment("春眠不觉晓。处处闻啼鸟 abc"));
    expect(calls.at(-2)).toBe("春眠不觉晓\n处处闻啼鸟\nabc");
    calls.length = 0;
    expect(cached("处处闻啼鸟。春眠不觉晓")).toEqual(["处处", "闻啼", "鸟", "。", "春眠", "不觉", "晓"]);
    expect(calls).toEqual([]);
    expect(cached("")).toEqual([]);
    expect(cached("。 。")).toEqual(["。", " ", "。"]);
  });

  it("keeps at most `limit` pieces and never caches long ones", () => {
    const { segment, calls } = pairs();
    const cached = cachedSegmenter(segment, { separators: " \n", joiner: "\n", limit: 2, maxPieceLength: 4 });
    cached("ab cd");
    cached("ef");
    calls.length = 0;
    cached("ab");
    expect(calls).toEqual(["ab"]); // cleared when the third piece came in
    cached("abcdef abcdef");
    calls.length = 0;
    cached("abcdef");
    expect(calls).toEqual(["abcdef"]);
  });

  it("rejects a joiner that is not a separator", () => {
    expect(() => cachedSegmenter(pairs().segment, { separators: " ", joiner: "\n" })).toThrow(/joiner/);
  });

  describe("with the bundled jieba", () => {
    let raw: HanSegmenter;
    let cached: HanSegmenter;
    beforeAll(() => {
      jieba.load();
      raw = (t) => jieba.cut(t, true);
      cached = cachedSegmenter(raw, { separators: CPPJIEBA_SEPARATORS, joiner: "\n", limit: 4096 });
    });

    it("gives exactly jieba's cut on 3,000 real poems, twice (cold and warm cache)", () => {
      const poems = loadTangPoems().slice(0, 3000).map(normalize);
      for (let round = 0; round < 2; round++) {
        for (const p of poems) expect(cached(p)).toEqual(raw(p));
      }
    });

    it("gives exactly jieba's cut on random mixed text with separators", () => {
      const unit = fc.constantFrom("中", "国", "人", "民", "银", "行", "。", "，", " ", "\n", "\t", "a", "1", ".", "区", "长", "江", "大", "桥");
      fc.assert(fc.property(fc.array(fc.string({ unit, maxLength: 30 }), { minLength: 1, maxLength: 4 }), (texts) => {
        for (const t of texts) expect(cached(t)).toEqual(raw(t));
      }), { numRuns: 500 });
    });
  });
});
