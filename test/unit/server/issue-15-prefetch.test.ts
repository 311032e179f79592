/**
 * Issue 15: the dedup service's analyses can come from the worker. A
 * prefetched analysis must be the one the main thread computes (same
 * fingerprint, LSH keys, vectors), and entries must not outlive the request.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { AnalysisPrefetch } from "../../../src/server/prefetch.js";
import { createOffloadingAnalyzer } from "../../../src/workers/index.js";

const fingerprinter = createFingerprinter();
const pool = createOffloadingAnalyzer(() => fingerprinter, { workers: 1 });
afterAll(() => pool.close());

const texts = Array.from({ length: 12 }, (_, i) => `第${i}篇。床前明月光，疑是地上霜。举头望明月，低头思故乡。The quick brown fox ${i} jumps over the lazy dog. `.repeat(40));

describe("AnalysisPrefetch (issue 15)", () => {
  it("serves the worker's analyses, identical to the main thread's, until released", async () => {
    const fp = await fingerprinter;
    const prefetch = new AnalysisPrefetch(pool);
    const wrapped = prefetch.wrap(fp);
    const release = await prefetch.prefetch([...texts, texts[0]!]);
    expect(prefetch.size).toBe(texts.length);
    for (const text of texts) {
      const fromWorker = wrapped.analyze(text, "text");
      const local = fp.analyze(text, "text");
      expect(fromWorker).not.toBe(local);
      expect(fromWorker.hex).toBe(local.hex);
      expect(fromWorker.lsh).toEqual(local.lsh);
      expect([...fromWorker.vector]).toEqual([...local.vector]);
      expect([...fromWorker.features]).toEqual([...local.features]);
      expect(fromWorker.normalized).toBe(local.normalized);
    }
    expect(wrapped.verdictOptions).toBe(fp.verdictOptions);
    release();
    release();
    expect(prefetch.size).toBe(0);
  });

  it("leaves small texts and texts the worker refuses to the service (which reports the error itself)", async () => {
    const fp = await fingerprinter;
    const prefetch = new AnalysisPrefetch(pool);
    expect((await prefetch.prefetch(["short text"]), prefetch.size)).toBe(0);
    const release = await prefetch.prefetch([" ".repeat(5000), texts[1]!]);
    expect(prefetch.size).toBe(1);
    expect(() => prefetch.wrap(fp).analyze(" ".repeat(5000), "items[0].text")).toThrow(/items\[0\]\.text is empty or white space only/);
    release();
  });

  it("counts overlapping requests for the same text", async () => {
    const prefetch = new AnalysisPrefetch(pool);
    const long = texts[2]!.repeat(2);
    const a = await prefetch.prefetch([long]);
    const b = await prefetch.prefetch([long]);
    a();
    expect(prefetch.size).toBe(1);
    b();
    expect(prefetch.size).toBe(0);
  });
});
