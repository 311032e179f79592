// Issue 10: analyses from the worker pool are interchangeable with in-thread ones.
import express from "express";
import pino from "pino";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NeardupError, createFingerprinter } from "../../../src/core/index.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { Registry } from "prom-client";
import { errorHandler } from "../../../src/server/errors.js";
import { registerPoolMetrics } from "../../../src/server/metrics.js";
import { encodeSketch, sketchOf, sketchTermsOf } from "../../../src/core/sketch.js";
import { createAnalyzer, createAnalyzerPool, createInThreadAnalyzer } from "../../../src/workers/index.js";
import { packAnalysis, unpackAnalysis } from "../../../src/workers/protocol.js";
import type { Analyzer } from "../../../src/workers/index.js";
import { buildPairs } from "../../../bench/quality/dataset.js";
import { loadChinese, loadEnglish } from "../../../bench/quality/sources.js";

let fp: Fingerprinter;
let pool: Analyzer;
const local = (): Analyzer => createInThreadAnalyzer(fp);

beforeAll(async () => {
  fp = await createFingerprinter({ maxTextLength: 100_000 });
  pool = await createAnalyzerPool(fp, { threads: 2, options: { maxTextLength: 100_000 } });
}, 120_000);
afterAll(async () => {
  await pool?.close();
});

describe("analyzer pool", () => {
  it("gives the same verdict as the in-thread analyzer on every pair of the quality benchmark", async () => {
    const pairs = buildPairs([loadChinese(), loadEnglish()]);
    expect(pairs.length).toBeGreaterThan(2000);
    const items = pairs.flatMap((p) => [{ text: p.a }, { text: p.b }]);
    const pooled = await pool.analyzeMany(items);
    const inThread = await local().analyzeMany(items);
    let duplicates = 0;
    let rejected = 0;
    for (let i = 0; i < pairs.length; i++) {
      const [pa, pb, la, lb] = [pooled[2 * i]!, pooled[2 * i + 1]!, inThread[2 * i]!, inThread[2 * i + 1]!];
      if (pa instanceof NeardupError || pb instanceof NeardupError || la instanceof NeardupError || lb instanceof NeardupError) {
        // The benchmark's character noise can leave a lone surrogate: both sides reject it alike.
        expect(String(pa instanceof NeardupError ? pa.message : "")).toBe(String(la instanceof NeardupError ? la.message : ""));
        expect(String(pb instanceof NeardupError ? pb.message : "")).toBe(String(lb instanceof NeardupError ? lb.message : ""));
        rejected++;
        continue;
      }
      const v = fp.compare(pa, pb);
      expect(v, `pair ${pairs[i]!.id}`).toEqual(fp.compare(la, lb));
      // Mixed: one side from a worker, the other from this thread.
      expect(fp.compare(pa, lb), `pair ${pairs[i]!.id} mixed`).toEqual(v);
      if (v.duplicate) duplicates++;
    }
    expect(duplicates).toBeGreaterThan(100); // the pairs exercise both verdicts
    expect(duplicates).toBeLessThan(pairs.length);
    expect(rejected).toBeLessThan(20);
  }, 300_000);

  it("sends an analysis across intact: Maps, lazy features, simhash, LSH keys", async () => {
    const text = "你妈妈喊你回家吃饭哦，回家罗回家罗";
    const a = await pool.analyze(text);
    const b = fp.analyze(text);
    expect(a.termCounts).toBeInstanceOf(Map);
    expect([...a.termCounts]).toEqual([...b.termCounts]);
    expect([...a.vector]).toEqual([...b.vector]);
    expect(a.short).toBe(true);
    expect([...a.features]).toEqual([...b.features]);
    // The worker built the sketch's terms too: the same as this thread builds from the vector.
    expect(a.sketchTerms).toEqual(sketchTermsOf(b.vector));
    expect(encodeSketch(sketchOf(a))).toBe(encodeSketch(sketchOf(b)));
    const { features: _fa, sketchTerms: _sa, ...restA } = a;
    const { features: _fb, ...restB } = b;
    expect(restA).toEqual(restB);
  });

  it("packs an analysis with each term once; the Maps are built when first read, once", () => {
    for (const text of ["你妈妈喊你回家吃饭哦，回家罗回家罗", "Hello world, a long English text ".repeat(20), "短", "的的的 the the"]) {
      const b = fp.analyze(text);
      const packed = structuredClone(packAnalysis(b));
      expect(packed.vectors?.terms).toEqual([...b.termCounts.keys()]);
      expect(packed.vectors?.vectorTerms).toBeUndefined();
      const data = unpackAnalysis(packed);
      const a = fp.fromData(data);
      expect(a.termCounts).toBe(a.termCounts);
      expect(a.vector).toBe(data.vector);
      expect([...a.termCounts]).toEqual([...b.termCounts]);
      expect([...a.vector]).toEqual([...b.vector]);
      expect([...a.features]).toEqual([...b.features]);
      expect(encodeSketch(sketchOf(a, Infinity))).toBe(encodeSketch(sketchOf(b, Infinity)));
    }
    // Vector keys that are not the counted terms (not made by the built-in weighing) cross too.
    const b = fp.analyze("明月 故乡 明月");
    const odd = { ...b, features: b.features, vector: new Map([["故乡", 0.5], ["明月", 0.25], ["别处", 0.1]]) };
    const a = fp.fromData(unpackAnalysis(structuredClone(packAnalysis(odd))));
    expect([...a.vector]).toEqual([...odd.vector]);
    expect([...a.termCounts]).toEqual([...b.termCounts]);
    expect(a.sketchTerms).toEqual(sketchTermsOf(odd.vector));
  });

  it("without vectors, sends no term Maps and builds them again from the text when one is read", () => {
    for (const text of ["你妈妈喊你回家吃饭哦，回家罗回家罗", "Hello world, a long English text ".repeat(20), "的的的 the the"]) {
      const b = fp.analyze(text);
      const packed = structuredClone(packAnalysis(b, false));
      expect(packed.vectors).toBeUndefined();
      let again = 0;
      const a = fp.fromData(
        unpackAnalysis(packed, () => {
          again++;
          return fp.analyze(text);
        }),
      );
      // What the write path reads comes from the packed data alone.
      expect([a.hex, a.lsh, a.normalized, a.length]).toEqual([b.hex, b.lsh, b.normalized, b.length]);
      expect(encodeSketch(sketchOf(a, Infinity))).toBe(encodeSketch(sketchOf(b, Infinity)));
      expect(again).toBe(0);
      expect([...a.vector]).toEqual([...b.vector]);
      expect([...a.termCounts]).toEqual([...b.termCounts]);
      expect(again).toBe(1); // once for both Maps
    }
    expect(() => fp.fromData(unpackAnalysis(structuredClone(packAnalysis(fp.analyze("明月"), false)))).vector).toThrow(/without vectors/);
  });

  it("analyzeMany without vectors gives the same analyses, Maps included when read", async () => {
    const texts = ["床前明月光，疑是地上霜。举头望明月，低头思故乡。", "Hello world, a long English text ".repeat(20), "  \u200b "];
    const got = await pool.analyzeMany(texts.map((text) => ({ text })), { vectors: false });
    expect(got[2]).toBeInstanceOf(NeardupError);
    for (const i of [0, 1]) {
      const a = got[i] as Exclude<(typeof got)[number], NeardupError>;
      const b = fp.analyze(texts[i]!);
      expect([a.hex, a.lsh, encodeSketch(sketchOf(a, Infinity))]).toEqual([b.hex, b.lsh, encodeSketch(sketchOf(b, Infinity))]);
      expect([...a.vector]).toEqual([...b.vector]);
      expect([...a.termCounts]).toEqual([...b.termCounts]);
    }
  });

  it("returns the worker's NeardupError with the same code, field and message", async () => {
    for (const [text, field] of [["  \u200b ", "items[3].text"], ["x".repeat(100_001), "text"], ["a\ud800b", "b"]] as const) {
      let expected: NeardupError | undefined;
      try {
        fp.analyze(text, field);
      } catch (e) {
        expected = e as NeardupError;
      }
      expect(expected).toBeInstanceOf(NeardupError);
      const got = await pool.analyze(text, field).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(got).toBeInstanceOf(NeardupError);
      const e = got as NeardupError;
      expect({ code: e.code, field: e.field, message: e.message, status: e.status }).toEqual({
        code: expected!.code,
        field: expected!.field,
        message: expected!.message,
        status: expected!.status,
      });
    }
  });

  it("analyzeMany keeps order and gives a bad item its error without failing the others", async () => {
    const out = await pool.analyzeMany([{ text: "第一条" }, { text: "   ", field: "items[1].text" }, { text: "third one" }]);
    expect(out).toHaveLength(3);
    expect((out[0] as { hex: string }).hex).toBe(fp.analyze("第一条").hex);
    expect(out[1]).toBeInstanceOf(NeardupError);
    expect((out[1] as NeardupError).field).toBe("items[1].text");
    expect((out[2] as { hex: string }).hex).toBe(fp.analyze("third one").hex);
  });

  it("makes work beyond its bound wait its turn, and refuses what would pass the waiting bound with OVERLOADED (503 + Retry-After)", async () => {
    const small = await createAnalyzerPool(fp, { threads: 1, maxPending: 4, maxWaiting: 3, options: { maxTextLength: 100_000 } });
    try {
      const long = "春眠不觉晓，处处闻啼鸟。".repeat(300);
      const running = [small.analyze(long), small.analyze(long), small.analyze(long), small.analyze(long)];
      // All calls are made before anything is awaited: 4 texts are in work, whatever the workers' speed.
      const one = small.analyze("one more"); // waits (1 of 3)
      const many = small.analyzeMany([{ text: "a" }, { text: "b" }]); // waits (3 of 3)
      const refused = await small.analyze("past the bound").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(NeardupError);
      expect((refused as NeardupError).code).toBe("OVERLOADED");
      // The load shows at a scrape: 4 texts in work, 3 waiting, 1 refused.
      const registry = new Registry();
      registerPoolMetrics(registry, () => small.load?.());
      const scrape = async () => (await registry.getMetricsAsJSON()).flatMap((m) => m.values.map((v) => `${m.name}${v.labels.state ? `{${v.labels.state}}` : ""}=${v.value}`)).sort();
      expect(await scrape()).toEqual(["neardup_analysis_pool_refused_texts_total=1", "neardup_analysis_pool_texts{in_work}=4", "neardup_analysis_pool_texts{waiting}=3"]);
      // What waited is analysed, exactly as in this thread, once the admitted work is done.
      expect((await one).hex).toBe(fp.analyze("one more").hex);
      expect((await many).map((a) => (a as { hex: string }).hex)).toEqual([fp.analyze("a").hex, fp.analyze("b").hex]);
      await Promise.all(running);
      expect((await small.analyze("past the bound")).hex).toBe(fp.analyze("past the bound").hex);
      expect(await scrape()).toEqual(["neardup_analysis_pool_refused_texts_total=1", "neardup_analysis_pool_texts{in_work}=0", "neardup_analysis_pool_texts{waiting}=0"]);

      const app = express();
      app.get("/", (_req, _res, next) => next(refused));
      app.use(errorHandler(pino({ level: "silent" })));
      const res = await request(app).get("/");
      expect(res.status).toBe(503);
      expect(res.headers["retry-after"]).toBe("1");
      expect(res.body.error.code).toBe("OVERLOADED");
    } finally {
      await small.close();
    }
  }, 120_000);

  it("refuses a call that waited longer than maxWaitMs, and waiting calls when it closes", async () => {
    const small = await createAnalyzerPool(fp, { threads: 1, maxPending: 1, maxWaitMs: 50, options: { maxTextLength: 100_000 } });
    const long = "春眠不觉晓，处处闻啼鸟。".repeat(2000);
    const outcome = (p: Promise<unknown>) => p.then(() => "done", (e: unknown) => e);
    const running = outcome(small.analyzeMany(Array.from({ length: 20 }, (_, i) => ({ text: long + i }))));
    await expect(small.analyze("waits too long")).rejects.toMatchObject({ code: "OVERLOADED" });
    const waiting = outcome(small.analyze("waits for the close"));
    await small.close();
    expect(await waiting).toMatchObject({ message: expect.stringMatching(/closed/) });
    await running;
  }, 120_000);

  it("refuses fingerprinter options that cannot cross to a thread, and calls after close", async () => {
    await expect(createAnalyzerPool(fp, { threads: 1, options: { tokenizer: { tokenize: (t) => [t] } } })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      field: "tokenizer",
    });
    const a = await createAnalyzer(fp, 1);
    expect(a.threads).toBe(1);
    await a.close();
    await expect(a.analyze("x")).rejects.toThrow(/closed/);
  });
});
