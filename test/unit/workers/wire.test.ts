/**
 * An analysis sent to another sidecar as JSON (workers/wire.ts) gives that
 * sidecar what its own analysis of the text would: the stored fields, the
 * re-rank sketch and the verdicts. Anything that does not fit is refused, so
 * the receiver analyses the text itself.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Analysis, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { CorpusIdf } from "../../../src/core/idf.js";
import { sketchOf } from "../../../src/core/sketch.js";
import { neardupSource } from "../../../src/service/documents.js";
import { createAnalyzerPool } from "../../../src/workers/index.js";
import { fromWire, toWire } from "../../../src/workers/wire.js";
import { englishVariants, LONG_ZH, MOM_A, MOM_B, NEWS_EN, OTHER_ZH, RECIPE_EN, variants } from "../../fixtures/texts/near-duplicates.js";

const TEXTS = [MOM_A, MOM_B, LONG_ZH, NEWS_EN, OTHER_ZH, RECIPE_EN, ...variants(LONG_ZH, 3), ...englishVariants(NEWS_EN, 3), "短", "Ｆｕｌｌ　ｗｉｄｔｈ  text\u200b with 😀 emoji"];
const overWire = (a: Analysis) => JSON.parse(JSON.stringify(toWire(a))) as unknown;
const decision = { status: "original" as const };

describe("analyses over the wire", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });

  it("give the stored fields, the sketch, the term Maps and every verdict of the receiver's own analysis", () => {
    for (const text of TEXTS) {
      const own = fp.analyze(text);
      const got = fromWire(overWire(own), text, fp)!;
      expect(got, text).toBeDefined();
      expect(neardupSource(got, decision, 1000, "x")).toEqual(neardupSource(own, decision, 1000, "x"));
      expect(sketchOf(got, Infinity)).toEqual(sketchOf(own, Infinity));
      expect([...got.termCounts]).toEqual([...own.termCounts]); // analysed again when read
      for (const other of TEXTS) expect(fp.compare(got, fp.analyze(other)), `${text} / ${other}`).toEqual(fp.compare(own, fp.analyze(other)));
    }
  });

  it("round-trips any text the fingerprinter accepts", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }), (text) => {
        let own: Analysis;
        try {
          own = fp.analyze(text);
        } catch {
          return; // refused texts are never forwarded
        }
        const got = fromWire(overWire(own), text, fp);
        expect(got).toBeDefined();
        expect(neardupSource(got!, decision, 1, "x")).toEqual(neardupSource(own, decision, 1, "x"));
      }),
      { numRuns: 300 },
    );
  });

  it("carries what a worker pool's analysis made without term Maps holds (the write path's analyses)", async () => {
    const pool = await createAnalyzerPool(fp, { threads: 2 });
    try {
      const outcomes = await pool.analyzeMany(TEXTS.map((text) => ({ text })), { vectors: false });
      outcomes.forEach((a, k) => {
        const own = fp.analyze(TEXTS[k]!);
        const got = fromWire(overWire(a as Analysis), TEXTS[k]!, fp)!;
        expect(sketchOf(got, Infinity)).toEqual(sketchOf(own, Infinity));
        expect(neardupSource(got, decision, 1, "x")).toEqual(neardupSource(own, decision, 1, "x"));
      });
    } finally {
      await pool.close();
    }
  });

  it("refuses what does not fit: another text, another fingerprint version, a malformed form", async () => {
    const own = fp.analyze(NEWS_EN);
    expect(fromWire(overWire(own), RECIPE_EN, fp)).toBeUndefined();
    const strict = await createFingerprinter({ maxTextLength: 50 }); // the receiver refuses this text: so must the wire
    expect(fromWire(overWire(own), NEWS_EN, strict)).toBeUndefined();
    const otherIdf = await createFingerprinter({ idf: CorpusIdf.fit([["other", "words"]]) });
    expect(fromWire(overWire(own), NEWS_EN, otherIdf)).toBeUndefined();
    const good = overWire(own) as Record<string, unknown>;
    for (const bad of [null, "x", { ...good, simhash: { hi: -1, lo: 0 } }, { ...good, hashes: "abc" }, { ...good, lsh: [1] }, { ...good, short: !own.short }, { ...good, lshScheme: "lsh9-1x1" }]) {
      expect(fromWire(bad, NEWS_EN, fp)).toBeUndefined();
    }
  });
});
