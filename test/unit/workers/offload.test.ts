// Issue 10: one worker pool for the service. Small work stays in this thread,
// large work (issue 15) and, with NEARDUP_WORKERS >= 2, every write request go
// to the pool; reports and analyses are the same wherever they ran.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CorpusIdf, createFingerprinter } from "../../../src/core/index.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { compareReport, createAnalyzerPool, createOffloadingAnalyzer, fingerprintReport } from "../../../src/workers/index.js";
import type { OffloadingAnalyzer } from "../../../src/workers/index.js";

const POEM = "床前明月光，疑是地上霜。举头望明月，低头思故乡。The quick brown fox jumps over the lazy dog. ";
const big = (salt: string) => (salt + POEM).repeat(60); // about 4,700 characters: past the 3,000 inline budget

let fp: Fingerprinter;
/** Texts analysed in this thread (by the fingerprinter the analyzers are given), but the probe a pool checks its workers with at start. */
const here: string[] = [];
const PROBE = /^neardup 探针/;
let counting: Fingerprinter;
const opened: OffloadingAnalyzer[] = [];
const offloading = (workers: number): OffloadingAnalyzer => {
  const a = createOffloadingAnalyzer(async () => counting, { workers });
  opened.push(a);
  return a;
};

beforeAll(async () => {
  fp = await createFingerprinter();
  counting = new Proxy(fp, {
    get(t, p, r) {
      if (p === "analyze") return (text: string, field?: string) => (PROBE.test(text) || here.push(text), t.analyze(text, field));
      return Reflect.get(t, p, r) as unknown;
    },
  });
}, 60_000);
afterAll(async () => {
  for (const a of opened) await a.close();
});

describe("the service's analyzer (one pool, issue 10)", () => {
  it("NEARDUP_WORKERS 1: small work in this thread, large work on the pool's one thread, same results", async () => {
    const a = offloading(1);
    expect(a.threads).toBe(1);
    here.length = 0;
    const [small] = await a.analyzeMany([{ text: POEM }]);
    expect(here).toEqual([POEM]);

    here.length = 0;
    const texts = [big("甲"), big("乙")];
    const pooled = await a.analyzeMany(texts.map((text) => ({ text })));
    expect(here).toEqual([]);
    pooled.forEach((x, i) => {
      if (x instanceof Error) throw x;
      expect(x.hex).toBe(fp.analyze(texts[i]!).hex);
      expect(x.lsh).toEqual(fp.analyze(texts[i]!).lsh);
      expect([...x.vector]).toEqual([...fp.analyze(texts[i]!).vector]);
    });
    expect(small).not.toBeInstanceOf(Error);

    here.length = 0;
    expect((await a.analyze(texts[0]!)).hex).toBe(fp.analyze(texts[0]!).hex);
    expect(here).toEqual([]);
  }, 120_000);

  it("reports: small inline, large on the pool, identical to the in-thread report", async () => {
    const a = offloading(1);
    here.length = 0;
    const smallJob = { kind: "compare", a: POEM, b: POEM + "！", editMaxChars: 4000 } as const;
    expect(await a.report(smallJob)).toEqual(compareReport(fp, smallJob));
    expect(here.length).toBe(2);

    here.length = 0;
    const job = { kind: "compare", a: big("丙"), b: big("丁"), editMaxChars: 4000 } as const;
    const fjob = { kind: "fingerprint", text: big("戊"), top: 5 } as const;
    expect(await a.report(job)).toEqual(compareReport(fp, job));
    expect(await a.report(fjob)).toEqual(fingerprintReport(fp, fjob));
    expect(here).toEqual([]);
    await expect(a.report({ kind: "compare", a: big("己"), b: " ".repeat(5000), editMaxChars: 4000 })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "b" });
  }, 120_000);

  it("NEARDUP_WORKERS 2: every write request on the pool, even a small one; single small texts inline", async () => {
    const a = offloading(2);
    expect(a.threads).toBe(2);
    here.length = 0;
    const items = Array.from({ length: 40 }, (_, i) => ({ text: `${i}号。${POEM}` }));
    const pooled = await a.analyzeMany(items);
    expect(here).toEqual([]);
    pooled.forEach((x, i) => {
      if (x instanceof Error) throw x;
      expect(x.hex).toBe(fp.analyze(items[i]!.text).hex);
    });
    here.length = 0;
    await a.analyze(POEM);
    expect(here).toEqual([POEM]);
  }, 120_000);

  it("a corpus IDF table (NEARDUP_IDF_FILE) crosses to the workers", async () => {
    const idf = CorpusIdf.fit([["明月", "故乡"], ["明月"], ["fox", "dog"]]);
    const withIdf = await createFingerprinter({ idf });
    // The pool checks at start that its workers fingerprint a probe text as this thread does.
    const pool = await createAnalyzerPool(withIdf, { threads: 1, options: { idf } });
    try {
      const a = await pool.analyze(big("庚"));
      const b = withIdf.analyze(big("庚"));
      expect(a.version).toBe(b.version);
      expect(a.version).toMatch(/\+idf\./);
      expect(a.hex).toBe(b.hex);
      expect([...a.vector]).toEqual([...b.vector]);
    } finally {
      await pool.close();
    }
  }, 120_000);
});
