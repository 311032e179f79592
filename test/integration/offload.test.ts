/**
 * Issue 15: a bulk request's texts are analysed in the worker, not on the
 * event loop (1,000 texts of 700 characters took about 1.7 s of event loop
 * before), and the verdicts are the same as with main-thread analysis.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../src/core/fingerprinter.js";
import { connectEngine, installTemplates, type Engine } from "../../src/engine/index.js";
import { AnalysisPrefetch } from "../../src/server/prefetch.js";
import { createOffloadingAnalyzer, type OffloadingAnalyzer } from "../../src/workers/index.js";
import { createApp } from "../../src/server/app.js";
import { createLogger } from "../../src/server/logger.js";
import { createMetrics } from "../../src/server/metrics.js";
import { Readiness } from "../../src/server/readiness.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";

const target = engineTargets().find((t) => t.kind === "opensearch") ?? engineTargets()[0]!;
const POEM = "床前明月光，疑是地上霜。举头望明月，低头思故乡。白日依山尽，黄河入海流。欲穷千里目，更上一层楼。";

describe("bulk analysis off the event loop (issue 15)", () => {
  const index = uniqueIndex("neardup-offload");
  const plainIndex = uniqueIndex("neardup-offload-plain");
  let engine: Engine;
  let fp: Fingerprinter;
  let pool: OffloadingAnalyzer;
  const mainThreadTexts: string[] = [];

  beforeAll(async () => {
    engine = await connectEngine({ url: target.url, username: target.username, password: target.password });
    await installTemplates(engine);
    fp = await createFingerprinter();
    pool = createOffloadingAnalyzer(async () => fp, { workers: 1 });
  });
  afterAll(async () => {
    await pool.close();
    await engine.deleteIndex(index).catch(() => undefined);
    await engine.deleteIndex(plainIndex).catch(() => undefined);
    await engine.close();
  });

  it("analyses every bulk text in the worker, with the verdicts of event-loop analysis", async () => {
    const counting = new Proxy(fp, {
      get(t, p, r) {
        if (p === "analyze") return (text: string, field?: string) => (mainThreadTexts.push(text), t.analyze(text, field));
        return Reflect.get(t, p, r) as unknown;
      },
    });
    const prefetch = new AnalysisPrefetch(pool);
    // As the service is built (src/server/service.ts): write requests analysed by its analyzer, on the pool.
    const service = new DedupService(engine, prefetch.wrap(counting), resolveDedupOptions({ index }), undefined, undefined, pool);
    await service.ensureIndex();
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, prefetch, service: () => service });

    const originals = Array.from({ length: 40 }, (_, i) => `第${i}号文件。${POEM.repeat(6)}编号${i * 7919}，${"甲乙丙丁戊己庚辛壬癸".repeat(1 + (i % 5))}。`);
    const docs = [
      ...originals.map((text, i) => ({ id: `o${i}`, text, time: 1_790_000_000_000 + i })),
      ...originals.map((text, i) => ({ id: `d${i}`, text: text + "（转载）", time: 1_790_000_100_000 + i })),
    ];
    const res = await request(app).post("/v1/documents/_bulk").set("Content-Type", "application/json").send(docs);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBe(false);

    // The same bulk through a service analysing on the event loop gives the same verdicts.
    const plain = new DedupService(engine, fp, resolveDedupOptions({ index: plainIndex }));
    await plain.ensureIndex();
    const plainApp = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => plain });
    const expected = await request(plainApp).post("/v1/documents/_bulk").set("Content-Type", "application/json").send(docs);
    const verdicts = (body: { items: { result: Record<string, unknown> }[] }) =>
      body.items.map(({ result }) => ({ id: result.id, status: result.status, duplicate_of: result.duplicate_of, distance: result.distance, similarity: result.similarity }));
    expect(verdicts(res.body)).toEqual(verdicts(expected.body));
    expect(verdicts(res.body).filter((v) => v.status === "duplicate").length).toBeGreaterThanOrEqual(originals.length);
    expect(mainThreadTexts.filter((t) => docs.some((d) => d.text === t))).toEqual([]);
    expect(prefetch.size).toBe(0);
  });
});
