import request from "supertest";
import { describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { MOM_A, MOM_B } from "../../fixtures/texts/near-duplicates.js";
import { expectSchema } from "../../helpers/openapi.js";
import { trigramContainment, trigramJaccard } from "../../../src/core/similarity/spread.js";

const fingerprinter = createFingerprinter();
const app = createApp({
  logger: createLogger("silent"),
  metrics: createMetrics({ defaultMetrics: false }),
  readiness: new Readiness(),
  fingerprinter: () => fingerprinter,
  service: () => undefined,
});

describe("engine-free endpoints", () => {
  it("fingerprint returns the simhash, its segments and top terms, matching the OpenAPI schema", async () => {
    const res = await request(app).post("/v1/fingerprint").send({ text: "美国“51区”雇员称内部有9架飞碟，曾看见灰色外星人", top: 20 });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Fingerprint");
    expect(res.body.segments.join("")).toBe(res.body.simhash);
    const terms = res.body.terms.map((t: { term: string }) => t.term);
    for (const word of ["51区", "飞碟", "外星人"]) expect(terms).toContain(word);
    const fp = await fingerprinter;
    expect(res.body.simhash).toBe(fp.analyze("美国“51区”雇员称内部有9架飞碟，曾看见灰色外星人").hex);
  });

  it("a text that is only markup (nothing left once nd2 drops it) is a 400 naming the field, on fingerprint and compare", async () => {
    const fingerprint = await request(app).post("/v1/fingerprint").send({ text: "<p></p>&nbsp;<br/>" });
    expect(fingerprint.status).toBe(400);
    expectSchema(fingerprint.body, "Error");
    expect(fingerprint.body.error).toMatchObject({ code: "INVALID_INPUT", field: "text" });
    const compare = await request(app).post("/v1/compare").send({ a: MOM_A, b: "<div><!-- x --></div>" });
    expect(compare.status).toBe(400);
    expect(compare.body.error).toMatchObject({ code: "INVALID_INPUT", field: "b" });
  });

  it("compare returns every pairwise measure and the verdict", async () => {
    const res = await request(app).post("/v1/compare").send({ a: MOM_A, b: MOM_B });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Compare");
    expect(res.body.edit_distance).toBe(2);
    expect(res.body.edit_similarity).toBeCloseTo(15 / 17, 5);
    expect(res.body.verdict.duplicate).toBe(true);
    expect(res.body.verdict.vetoed).toBeNull();
    expect(res.body.hamming).toBeGreaterThanOrEqual(0);
    // The `.jaccard` rule's own measure, on the normalized texts (docs audit: compare did not show it).
    const fp = await fingerprinter;
    expect(res.body.jaccard_trigrams).toBeCloseTo(trigramJaccard(fp.analyze(MOM_A).normalized, fp.analyze(MOM_B).normalized), 6);
  });

  it("compare gives the containment rule's measure, and names the rule for a copy cut short", async () => {
    const whole = "The committee met on Tuesday to review the budget for next year. After a long debate it approved the plan for new bicycle lanes across the city centre, and asked for a report on costs by March. Members also discussed the library's opening hours and the state of the old swimming pool.";
    const cut = whole.slice(0, Math.round(whole.length * 0.75));
    const res = await request(app).post("/v1/compare").send({ a: whole, b: cut });
    expect(res.status).toBe(200);
    const fp = await fingerprinter;
    expect(res.body.containment_trigrams).toBeCloseTo(trigramContainment(fp.analyze(whole).normalized, fp.analyze(cut).normalized), 6);
    expect(res.body.containment_trigrams).toBe(1);
    expect(res.body.verdict).toMatchObject({ duplicate: true, rule: "medium.contained", vetoed: null });
  });

  it("compare names the veto that overruled a duplicate rule (quality audit: a pair was refused and nothing said why)", async () => {
    const res = await request(app).post("/v1/compare").send({ a: "dear fma , want i've", b: "dear fma , want *nod* i" });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Compare");
    expect(res.body.verdict).toMatchObject({ duplicate: false, rule: null, vetoed: "tiny.ending" });
  });

  it("the engine endpoints answer 503 with Retry-After until the engine is ready", async () => {
    const res = await request(app).post("/v1/check").send({ text: "hello" });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expectSchema(res.body, "Error");
    expect(res.body.error.message).toBe("the engine is not ready yet (starting)");
  });

  it("serves the OpenAPI document listing every /v1 path", async () => {
    const res = await request(app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(["/v1/fingerprint", "/v1/compare", "/v1/check", "/v1/documents", "/v1/documents/_bulk", "/v1/search", "/v1/documents/{id}/duplicates"]));
  });
});
