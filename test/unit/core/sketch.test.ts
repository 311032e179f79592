/**
 * The re-rank from stored sketches gives the same verdicts as the re-rank
 * from the texts (issue 9), on every pair of the quality benchmark.
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPairs, type Pair } from "../../../bench/quality/dataset.js";
import { loadPoems } from "../../../bench/poems.js";
import { loadChinese, loadEnglish } from "../../../bench/quality/sources.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { compareSketches, decodeSketch, editTextLimit, encodeSketch, sketchOf, type Sketched } from "../../../src/core/sketch.js";
import { DEFAULT_VERDICT_OPTIONS } from "../../../src/core/verdict.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

let fp: Fingerprinter;
let pairs: Pair[];
beforeAll(async () => {
  fp = await defaultFingerprinter();
  pairs = buildPairs([loadChinese(), loadEnglish()], 20260601);
}, 120_000);

describe("sketch", () => {
  it("gives decide's verdict (duplicate, rule, distance, cosine) on every quality-benchmark pair, stored form included", () => {
    let withEdit = 0;
    let fetched = 0;
    let skippedEdit = 0;
    for (const p of pairs) {
      let a, b;
      try {
        a = fp.analyze(p.a);
        b = fp.analyze(p.b);
      } catch {
        continue; // a pair the input rules refuse (a lone surrogate) is not compared by the service either
      }
      const expected = fp.compare(a, b);
      // As stored: encoded, decoded, text only when short; the text is "fetched" when asked for.
      const stored: Sketched = { simhash: b.simhash, sketch: decodeSketch(encodeSketch(sketchOf(b))) };
      const query: Sketched = { simhash: a.simhash, sketch: sketchOf(a, Infinity) };
      let got = compareSketches(query, stored, DEFAULT_VERDICT_OPTIONS);
      if (got === undefined) {
        fetched++;
        stored.sketch.text = b.normalized;
        got = compareSketches(query, stored, DEFAULT_VERDICT_OPTIONS);
      }
      expect(got, `pair ${p.id}`).toBeDefined();
      expect({ id: p.id, duplicate: got!.duplicate, rule: got!.rule, bucket: got!.bucket, distance: got!.distance }).toEqual({
        id: p.id,
        duplicate: expected.duplicate,
        rule: expected.rule,
        bucket: expected.bucket,
        distance: expected.distance,
      });
      expect(Math.abs(got!.cosine - expected.cosine), `pair ${p.id} cosine`).toBeLessThan(1e-5);
      if (got!.editSimilarity !== null) {
        withEdit++;
        expect(got!.editSimilarity).toBe(expected.editSimilarity);
      } else if (expected.editSimilarity !== null) skippedEdit++;
    }
    expect(pairs.length).toBeGreaterThan(2000);
    // Edit distance is computed only for some pairs; some texts had to be fetched.
    expect(withEdit).toBeGreaterThan(0);
    expect(skippedEdit).toBeGreaterThan(0);
    expect(fetched).toBeGreaterThan(0);
  }, 120_000);

  it("stores the same bytes as sk1 always did (data contract: a stored sketch must not change with the code)", () => {
    // Digest of the stored sketches of 400 poems and 100 English texts, pinned when sk1 was defined;
    // recomputed unchanged after the sketch builder was rewritten (hash into a scratch buffer, one build per vector).
    const digest = createHash("sha256");
    const texts = [...loadPoems(1).slice(0, 400), ...loadEnglish().groups.slice(0, 100).map((g) => g.docs[0]!)];
    expect(texts).toHaveLength(500);
    for (const text of texts) digest.update(encodeSketch(sketchOf(fp.analyze(text)))).update("\n");
    expect(digest.digest("hex")).toBe("6221162dee1630a8f18ed437f98ee5016552ed276d5d11ad64ebef38ff2acb69");
  });

  it("builds one sketch per analysis: later sketches share its terms and differ only in the inline text", () => {
    const a = fp.analyze("今天天气很好，我们一起去公园散步吧。The quick brown fox jumps over the lazy dog.");
    const first = sketchOf(a, 0);
    const again = sketchOf(a, Infinity);
    expect(again.hashes).toBe(first.hashes);
    expect(again.weights).toBe(first.weights);
    expect(first.text).toBeUndefined();
    expect(again.text).toBe(a.normalized);
    const fresh = sketchOf(fp.analyze("今天天气很好，我们一起去公园散步吧。The quick brown fox jumps over the lazy dog."), 0);
    expect(fresh.hashes).not.toBe(first.hashes);
    expect(encodeSketch(fresh)).toBe(encodeSketch(first));
  });

  it("keeps short texts inline and round-trips through base64, unpadded too", () => {
    const a = fp.analyze("The quick brown fox jumps over the lazy dog. 敏捷的棕色狐狸跳过了懒狗。");
    const s = sketchOf(a);
    const encoded = encodeSketch(s);
    const back = decodeSketch(encoded.replace(/=+$/, ""));
    expect(back.text).toBe(a.normalized);
    expect(back.length).toBe(a.length);
    expect([...back.hashes]).toEqual([...s.hashes]);
    expect(sketchOf(a, 10).text).toBeUndefined();
  });

  it("refuses a malformed sketch, naming the field", () => {
    const e = thrown(() => decodeSketch("AAAA"));
    expect(e.code).toBe("INVALID_INPUT");
    expect(e.message).toContain("neardup.sketch");
  });

  it("needs no text above the edit limit of the default rules (5,000 / 0.75)", () => {
    expect(editTextLimit(DEFAULT_VERDICT_OPTIONS)).toBe(6667);
  });
});
