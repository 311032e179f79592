import { beforeAll, describe, expect, it } from "vitest";
import { createWordBoundaryTokenizer, normalize } from "../../../src/core/index.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { defaultFingerprinter } from "./helpers.js";

describe("normalize", () => {
  it("applies NFKC (full-width to half-width), lower case, control removal and whitespace collapse", () => {
    expect(normalize("  ＡＢＣ１２３，Ｈｅｌｌｏ\u3000World\t\n! ")).toBe("abc123,hello world !");
    expect(normalize("zero\u200bwidth\u0000 soft\u00adhyphen")).toBe("zerowidth softhyphen");
    expect(normalize("ﬁ ㍻")).toBe("fi 平成");
  });
});

describe("mixed tokenizer", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("keeps 51区, 飞碟 and 外星人 as features (issue 3 example)", () => {
    const text = "美国“51区”雇员称内部有9架飞碟，曾看见灰色外星人";
    const tokens = fp.tokenize(text);
    expect(tokens).toEqual(["美国", "51区", "雇员", "称", "内部", "有", "9架", "飞碟", "曾", "看见", "灰色", "外星人"]);
    const features = fp.analyze(text).vector;
    for (const w of ["51区", "飞碟", "外星人"]) expect(features.has(w)).toBe(true);
  });

  it("segments other scripts by word boundaries and drops punctuation and spaces", () => {
    expect(fp.tokenize("Hello, World! don't stop; iPhone15 costs 3.5元")).toEqual([
      "hello", "world", "don't", "stop", "iphone15", "costs", "3.5元",
    ]);
  });

  it("joins a number with a following one-character Han word only when adjacent", () => {
    expect(fp.tokenize("51 区")).toEqual(["51", "区"]);
    expect(fp.tokenize("51区")).toEqual(["51区"]);
    // The first Han word has two characters: no join.
    expect(fp.tokenize("2024美国")).toEqual(["2024", "美国"]);
  });

  it("drops stop words from features but not from the token count", () => {
    const a = fp.analyze("我的朋友的书");
    expect(a.termCounts.has("的")).toBe(false);
    expect(a.tokenCount).toBe(fp.tokenize("我的朋友的书").length);
  });

  it("word-boundary tokenizer works without jieba", () => {
    expect(createWordBoundaryTokenizer().tokenize("a b-c, d")).toEqual(["a", "b", "c", "d"]);
  });
});

describe("unicodeWords", () => {
  it("fast path gives exactly the Intl.Segmenter words", async () => {
    const fc = (await import("fast-check")).default;
    const { unicodeWords } = await import("../../../src/core/tokenize.js");
    const seg = new Intl.Segmenter("en", { granularity: "word" });
    const reference = (t: string) => [...seg.segment(t)].map((s) => s.segment).filter((s) => /[\p{L}\p{N}]/u.test(s));
    const unit = fc.constantFrom("a", "z", "0", "9", " ", ".", ",", "'", "-", "_", ":", "“", "”", "!", "é", "\u0301", "😀", "中", "@");
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (t) => {
        expect(unicodeWords(t)).toEqual(reference(t));
      }),
      { numRuns: 2000 },
    );
  });
});
