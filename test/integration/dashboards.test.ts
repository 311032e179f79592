/**
 * The dashboards against every real engine on seeded data (issue 13): each
 * panel's query, sent the way Kibana / OpenSearch Dashboards send it and
 * turned into rows by the spec's own Vega-Lite transforms, gives the seeded
 * numbers; `rows()` (what /v1/stats serves) gives the same; /v1/stats gives
 * them over HTTP; bad parameters are 400s naming the parameter.
 */
import { SHIPPED_BY_FIELD } from "../../src/dashboards/saved-objects.js";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PANELS } from "../../src/dashboards/definition.js";
import { savedObjects } from "../../src/dashboards/saved-objects.js";
import { productSpec } from "../../src/dashboards/vega.js";
import { bucketCount, computeStats } from "../../src/service/stats.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { expectedRows, seedDocs, writeSeed } from "../helpers/dashboards-seed.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";
import { documentedStatuses, expectSchema } from "../helpers/openapi.js";
import { runProductSpec } from "../helpers/vega-run.js";
import componentTemplate from "../../mappings/component-template.neardup.json" with { type: "json" };

const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 20); // 2026-11-20T00:00Z, three seeded days
const END = START + 3 * DAY - 1;
const docs = seedDocs(START, DAY);
const expected = expectedRows(docs, START, DAY);

describe.each(engineTargets())("dashboards on $kind $version ($source)", (target) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target);
    await writeSeed(h.engine, h.index, docs);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("the seed is what the test says: 20%, 50% and 0% duplicates on the three days", () => {
    expect(expected.rate_over_time!.map((r) => r.rate)).toEqual([0.2, 0.5, 0]);
    expect(expected.top_clusters!.map((r) => [r.original, r.duplicates])).toEqual([["orig-a", 6], ["orig-b", 4], ["orig-c", 2]]);
  });

  // Kibana 8 reads Elasticsearch 8; OpenSearch Dashboards 2 reads OpenSearch 2.
  const product = target.kind === "elasticsearch" ? "kibana" : "opensearch-dashboards";
  const ctx = { from: START, to: END, interval: "1d", product } as const;

  it.each(PANELS.filter((p) => p.chart).map((p) => [p.id, p]))(`${product}: panel %s gives the seeded numbers`, async (_id, panel) => {
    const spec = productSpec(panel, product, { indexPattern: h.index, byField: SHIPPED_BY_FIELD, top: 10 });
    const { answer, rows } = await runProductSpec(h.engine, h.index, spec, ctx, panel.rowFields);
    expect(rows).toEqual(expected[panel.id]);
    // What /v1/stats computes from the same answer, in TypeScript, is the same.
    expect(panel.rows((answer.aggregations as Record<string, unknown>)[panel.id])).toEqual(expected[panel.id]);
  });

  it(`the shipped ${product} saved objects' specs run as they are (index pattern aside)`, async () => {
    for (const o of savedObjects(product).filter((x) => x.type === "visualization")) {
      const spec = JSON.parse(JSON.parse(o.attributes.visState as string).params.spec);
      spec.data.url.index = h.index;
      const panel = PANELS.find((p) => spec.data.format.property === p.bucketsPath)!;
      const { rows } = await runProductSpec(h.engine, h.index, spec, ctx, panel.rowFields);
      expect(rows, o.id).toEqual(expected[panel.id]);
    }
  });

  it("GET /v1/stats serves the same numbers over a range", async () => {
    const res = await request(h.app).get("/v1/stats").query({ from: new Date(START).toISOString(), to: String(END), interval: "1d" });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Stats");
    expect(res.body).toMatchObject({ total: 34, duplicates: 12, interval: "1d", by: "fields.source", by_field: "fields.source" });
    expect(res.body.rate).toBeCloseTo(12 / 34, 12);
    expect(res.body.panels).toEqual(expected);
  });

  it("GET /v1/stats buckets fall on the epoch's multiples of the interval, as the products draw them: a range starting mid-interval gets the whole first bucket, and as many buckets as the engine makes (stats audit: the count was one more)", async () => {
    const from = START + 10 * 3_600_000; // 10:00 on the first seeded day
    const res = await request(h.app).get("/v1/stats").query({ from, to: END, interval: "1d" });
    expect(res.status).toBe(200);
    const rows = res.body.panels.rate_over_time as { time: number; total: number }[];
    expect(rows.map((r) => r.time)).toEqual([0, 1, 2].map((d) => START + d * DAY));
    expect(rows.reduce((n, r) => n + r.total, 0)).toBe(res.body.total);
    expect(rows).toHaveLength(bucketCount(from, END, DAY));
  });

  it("GET /v1/stats defaults to the dedup window, which holds none of the seeded days", async () => {
    const res = await request(h.app).get("/v1/stats");
    expect(res.status).toBe(200);
    expectSchema(res.body, "Stats");
    expect(res.body).toMatchObject({ total: 0, duplicates: 0, rate: null, interval: "1h" });
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(h.service.options.windowMs);
    expect(res.body.panels.rate_over_time).toHaveLength(49);
  });

  it("GET /v1/stats by a key of the user's fields and by a neardup field", async () => {
    const byKeyword = await request(h.app).get("/v1/stats").query({ from: START, to: END, by: "fields.source" });
    expect(byKeyword.body.panels.rate_by_field).toEqual(expected.rate_by_field);
    const byRule = await request(h.app).get("/v1/stats").query({ from: START, to: END, by: "neardup.reason", top: 2 });
    expect(byRule.body.by_field).toBe("neardup.reason");
    expect(byRule.body.panels.rate_by_field).toHaveLength(2);
    expect(byRule.body.panels.top_clusters).toEqual(expected.top_clusters!.slice(0, 2));
  });

  it.each([
    [{ from: "yesterday" }, "from"],
    [{ to: "2026-13-45" }, "to"],
    [{ from: END, to: START }, "from"],
    [{ interval: "1w" }, "interval"],
    [{ interval: "0h" }, "interval"],
    [{ from: START, to: END, interval: "1ms" }, "interval"],
    [{ by: "fields..source" }, "by"],
    [{ by: "$where" }, "by"],
    [{ top: "0" }, "top"],
    [{ size: "3" }, "size"],
  ])("GET /v1/stats with %j is a 400 naming %s", async (query, field) => {
    const res = await request(h.app).get("/v1/stats").query(query);
    expect(res.status).toBe(400);
    expectSchema(res.body, "Error");
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field });
    expect(documentedStatuses("/v1/stats", "get")).toContain("400");
  });

  it("GET /v1/stats by a field the engine cannot aggregate is a 400 naming by (OpenSearch's flat_object root: it was a 502)", async () => {
    const res = await request(h.app).get("/v1/stats").query({ from: START, to: END, by: "fields" });
    if (h.engine.kind === "elasticsearch") {
      expect(res.status).toBe(200); // a flattened root field aggregates its values
      return;
    }
    expect(res.status).toBe(400);
    expectSchema(res.body, "Error");
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field: "by", message: expect.stringContaining("cannot be aggregated") });
  });

  it("GET /v1/stats by a field the index does not map, or a text field with no keyword subfield, is a 400 naming by (both were a 200 with empty rows)", async () => {
    const unmapped = await request(h.app).get("/v1/stats").query({ from: START, to: END, by: "fields_source" });
    expect(unmapped.status).toBe(400);
    expectSchema(unmapped.body, "Error");
    expect(unmapped.body.error).toMatchObject({ code: "INVALID_INPUT", field: "by", message: expect.stringContaining('by "fields_source" is not a field in the mapping of index') });
    const text = await request(h.app).get("/v1/stats").query({ from: START, to: END, by: "text" });
    expect(text.status).toBe(400);
    expect(text.body.error).toMatchObject({ code: "INVALID_INPUT", field: "by", message: expect.stringContaining('by "text" is a text field with no keyword subfield') });
  });

  it("the default rate-by field is never refused: where `fields` is not searchable (OpenSearch before 2.7) its rows are empty; named, it is a 400", async () => {
    const index = uniqueIndex("neardup-dash-nofields");
    const mappings = structuredClone(componentTemplate.template.mappings) as { properties: Record<string, unknown> };
    mappings.properties.fields = { type: "object", enabled: false };
    await h.engine.createIndex(index, { mappings });
    try {
      await writeSeed(h.engine, index, docs);
      const stats = await computeStats(h.engine, index, { from: START, to: END, interval: "1d", by: "fields.source", top: 10 });
      expect(stats.total).toBe(docs.length);
      expect(stats.panels.rate_by_field).toEqual([]);
      await expect(computeStats(h.engine, index, { from: START, to: END, interval: "1d", by: "fields.source", byGiven: true, top: 10 })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "by" });
    } finally {
      await h.engine.deleteIndex(index);
    }
  });

  it("rate by a key of a flattened (Elasticsearch) / flat_object (OpenSearch) field", async () => {
    const index = uniqueIndex("neardup-dash-flat");
    const mappings = structuredClone(componentTemplate.template.mappings) as { properties: Record<string, unknown> };
    mappings.properties.text = { type: "text" };
    mappings.properties.fields = { type: h.engine.kind === "elasticsearch" ? "flattened" : "flat_object" };
    await h.engine.createIndex(index, { mappings });
    try {
      await writeSeed(h.engine, index, docs);
      const stats = await computeStats(h.engine, index, { from: START, to: END, interval: "1d", by: "fields.source", byGiven: true, top: 10 });
      expect(stats.by_field).toBe("fields.source");
      expect(stats.panels.rate_by_field).toEqual(expected.rate_by_field);
    } finally {
      await h.engine.deleteIndex(index);
    }
  });
});
