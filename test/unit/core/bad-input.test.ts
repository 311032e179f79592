import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { CorpusIdf, createFingerprinter, fromHex, NeardupError, validateText } from "../../../src/core/index.js";
import { textRefusal } from "../../../src/core/validate.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

describe("bad input", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("rejects non-strings naming the type", () => {
    for (const [value, got] of [[42, "number"], [null, "null"], [undefined, "undefined"], [["a"], "array"], [{}, "object"]] as const) {
      const e = thrown(() => fp.analyze(value as unknown as string));
      expect(e).toBeInstanceOf(NeardupError);
      expect(e.code).toBe("INVALID_INPUT");
      expect(e.message).toBe(`text must be a string, got ${got}`);
    }
  });

  it("rejects empty and white-space-only text", () => {
    for (const t of ["", "   ", "\n\t \u3000"]) {
      const e = thrown(() => fp.analyze(t));
      expect(e.code).toBe("INVALID_INPUT");
      expect(e.message).toBe("text is empty or white space only");
    }
  });

  it("rejects text with no visible characters after normalization", () => {
    const e = thrown(() => fp.analyze("\u200b\u200b"));
    expect(e.code).toBe("INVALID_INPUT");
    expect(e.message).toBe("text has no visible characters after normalization");
  });

  it("rejects lone surrogates naming the code unit and index", () => {
    expect(thrown(() => fp.analyze("ab\ud800c")).message).toBe("text contains a lone surrogate U+D800 at index 2");
    expect(thrown(() => fp.analyze("\udc00")).message).toBe("text contains a lone surrogate U+DC00 at index 0");
    expect(() => fp.analyze("ok 😀")).not.toThrow();
  });

  it("rejects text over the size limit with TOO_LARGE", async () => {
    const small = await createFingerprinter({ maxTextLength: 10 });
    const e = thrown(() => small.analyze("x".repeat(11)));
    expect(e.code).toBe("TOO_LARGE");
    expect(e.message).toBe("text is 11 UTF-16 code units, over the limit of 10");
    expect(small.analyze("x".repeat(10)).length).toBe(10);
  });

  it("names the field in compare", () => {
    const e = thrown(() => fp.compare("fine", ""));
    expect(e.field).toBe("b");
    expect(e.message).toBe("b is empty or white space only");
  });

  it("validateText accepts good text unchanged", () => {
    expect(validateText("中文")).toBe("中文");
  });

  it("rejects unknown and out-of-range options with INVALID_CONFIG", async () => {
    await expect(createFingerprinter({ colour: "red" } as never)).rejects.toMatchObject({ code: "INVALID_CONFIG", message: "unknown option colour" });
    await expect(createFingerprinter({ maxTextLength: -1 })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      message: "maxTextLength must be a positive integer, got -1",
    });
    await expect(
      createFingerprinter({ verdict: { buckets: [{ name: "all", maxLength: 10, searchRadius: 3, maxDistance: 3, minCosine: null, minEditSimilarity: null }] } }),
    ).rejects.toMatchObject({ code: "INVALID_CONFIG", message: "verdict.buckets: the last bucket must have maxLength Infinity" });
  });

  it("rejects corrupt IDF tables with CORRUPT_FILE", () => {
    expect(thrown(() => CorpusIdf.fromJSON("{")).code).toBe("CORRUPT_FILE");
    expect(thrown(() => CorpusIdf.fromJSON({ format: "neardup-idf", version: 2, n: 1, df: {} })).message).toBe("IDF table version must be 1, got 2");
    expect(thrown(() => CorpusIdf.fromJSON({ format: "neardup-idf", version: 1, n: 1, df: { a: 2 } })).message).toBe(
      'IDF table df["a"] must be an integer in 1..1, got 2',
    );
  });

  it("rejects malformed hex", () => {
    expect(thrown(() => fromHex("xyz")).code).toBe("INVALID_INPUT");
  });
});

describe("textRefusal: what analyze would refuse, without analysing", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter({ maxTextLength: 40 });
  });

  it("agrees with analyze on any text, with the same message", () => {
    const unit = fc.constantFrom("a", "漢", " ", "\u200b", "\ufeff", "\u00ad", "\t", "\u3000", "\ud800", "\udc00", "😀", "\u0301", "ｱ", "\u0000", "\u2028", "1", ".", "é");
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 45 }).map((units) => units.join("")), (text) => {
        let expected: string | undefined;
        try {
          fp.analyze(text, "message");
        } catch (err) {
          expected = (err as Error).message;
        }
        expect(textRefusal(text, 40, "message")?.message).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
