/**
 * Issue 15: /v1/compare on long texts no longer freezes the service. The exact
 * edit distance stops at a budget of work (a linear bound beyond it), and
 * large texts are analysed in a worker thread, so /livez answers meanwhile.
 */
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { editSimilarity } from "../../../src/core/similarity/index.js";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { expectSchema } from "../../helpers/openapi.js";
import { createOffloadingAnalyzer } from "../../../src/workers/index.js";

const fingerprinter = createFingerprinter();
// The service's analyzer at NEARDUP_WORKERS=1: small work in this thread, large work on one worker thread.
const pool = createOffloadingAnalyzer(() => fingerprinter, { workers: 1 });
const metrics = createMetrics({ defaultMetrics: false });
const app = createApp({ logger: createLogger("silent"), metrics, readiness: new Readiness(), analyzer: pool, limits: { compareEditMaxChars: 4000 } });
afterAll(() => pool.close());

const base = "The quick brown fox jumps over the lazy dog while 美国雇员称内部有9架飞碟. ";
const long = (n: number, salt = "") => (salt + base).repeat(Math.ceil(n / base.length)).slice(0, n);

describe("/v1/compare bounds (issue 15)", () => {
  it("computes the exact edit distance within the budget", async () => {
    const res = await request(app).post("/v1/compare").send({ a: long(3000), b: long(3000, "x") });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Compare");
    expect(res.body.edit_measure).toBe("levenshtein");
    expect(Number.isInteger(res.body.edit_distance)).toBe(true);
  });

  it("past the budget, computes the exact distance of two long near-duplicates (it fits the band the budget pays for)", async () => {
    const a = long(60_000);
    const chars = Array.from(a);
    for (const at of [10, 20_000, 45_000]) chars[at] = "之"; // three substitutions
    const b = `${chars.join("")}（转载）`; // and four characters appended: distance 7
    const res = await request(app).post("/v1/compare").send({ a, b });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Compare");
    expect(res.body).toMatchObject({ edit_distance: 7, edit_measure: "levenshtein" });
    const fp = await fingerprinter;
    expect(res.body.edit_similarity).toBeCloseTo(editSimilarity(fp.analyze(a).normalized, fp.analyze(b).normalized), 6);
  });

  it("past the budget, reports the linear upper bound for texts far apart, and counts it", async () => {
    const a = long(6000);
    const b = "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。寒来暑往，秋收冬藏。".repeat(200).slice(0, 6000);
    const res = await request(app).post("/v1/compare").send({ a, b });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Compare");
    expect(res.body).toMatchObject({ edit_distance: null, edit_measure: "qgram_bound" });
    const fp = await fingerprinter;
    const exact = editSimilarity(fp.analyze(a).normalized, fp.analyze(b).normalized);
    expect(res.body.edit_similarity).toBeGreaterThanOrEqual(exact - 1e-6);
    expect(await metrics.registry.getSingleMetricAsString("neardup_limit_hits_total")).toMatch(/limit="compare_edit"\} 1/);
  });

  it("keeps answering /livez while two 300,000-character texts are compared", async () => {
    const order: string[] = [];
    const compare = request(app)
      .post("/v1/compare")
      .send({ a: long(300_000), b: long(300_000, "y") })
      .then((res) => {
        order.push("compare");
        return res;
      });
    await new Promise((r) => setTimeout(r, 50));
    const live = await request(app).get("/livez");
    order.push("livez");
    expect(live.status).toBe(200);
    const res = await compare;
    expect(res.status).toBe(200);
    expect(res.body.edit_measure).toBe("qgram_bound");
    expect(order).toEqual(["livez", "compare"]);
  });

  it("validation errors from the worker keep their status and field", async () => {
    const res = await request(app).post("/v1/compare").send({ a: long(5000), b: " ".repeat(5000) });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe("b");
  });
});
