/**
 * `GET /v1/stats?by=<a field the index does not map>` answered 200 with empty
 * rows, as if no document had a value; it is a 400 naming `by` now. The
 * default `by` (fields.source) may be unmapped (an index without `fields`), so
 * it is never refused: its rows are empty.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { toFieldTypes } from "../../../src/engine/responses.js";
import type { Engine, SearchResponse } from "../../../src/engine/types.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { createApp } from "../../../src/server/app.js";
import type { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { computeStats } from "../../../src/service/stats.js";

const DAY = 86_400_000;
const EMPTY: SearchResponse<never> = { took: 1, hits: { total: { value: 0, relation: "eq" }, hits: [] }, aggregations: {} };

/** An engine double whose index maps `types` (field -> types); a search answers no hits, or a fielddata refusal for a text field. */
function engineMapping(types: Record<string, string>): Engine {
  const engine: Partial<Engine> = {
    kind: "opensearch",
    search: async <T>(r: { body: Record<string, unknown> }) => {
      const field = JSON.stringify(r.body).match(/"rate_by_field":\{"terms":\{"field":"([^"]+)"/)?.[1];
      if (field !== undefined && types[field] === "text") throw new NeardupError("ENGINE_ERROR", "search: the engine answered 400 Text fields are not optimised for operations that require per-document field data", { details: { status: 400 } });
      return EMPTY as SearchResponse<T>;
    },
    fieldTypes: async (_index: string, fields: readonly string[]) => new Map(fields.filter((f) => types[f] !== undefined).map((f) => [f, [types[f]!]])),
  };
  return engine as Engine;
}

const query = (by: string, byGiven = true) => ({ from: 0, to: DAY, interval: "1h", by, byGiven, top: 10 });

describe("GET /v1/stats by a field the index does not map (issue: 200 with empty rows)", () => {
  const mapping = { "neardup.reason": "keyword", fields: "flat_object", "dyn": "text", "dyn.keyword": "keyword", "body": "text" };

  it("refuses a `by` that is not in the index mapping, naming by", async () => {
    await expect(computeStats(engineMapping(mapping), "docs", query("fields_source"))).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "by",
      message: expect.stringMatching(/^by "fields_source" is not a field in the mapping of index "docs"/),
    });
  });

  it("refuses a text field with no keyword subfield: nothing to aggregate (it also answered empty rows)", async () => {
    await expect(computeStats(engineMapping(mapping), "docs", query("body"))).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "by",
      message: expect.stringMatching(/^by "body" is a text field with no keyword subfield/),
    });
  });

  it("takes a mapped field, a key of a flattened / flat_object field, and a text field with its .keyword", async () => {
    const engine = engineMapping(mapping);
    expect((await computeStats(engine, "docs", query("neardup.reason"))).by_field).toBe("neardup.reason");
    expect((await computeStats(engine, "docs", query("fields.source"))).by_field).toBe("fields.source");
    expect((await computeStats(engineMapping({ fields: "flattened" }), "docs", query("fields.a.b"))).by_field).toBe("fields.a.b");
    expect((await computeStats(engine, "docs", query("dyn"))).by_field).toBe("dyn.keyword");
  });

  it("does not refuse the default field when it is not mapped (an index without `fields`): its rows are empty", async () => {
    const stats = await computeStats(engineMapping({}), "docs", query("fields.source", false));
    expect(stats.panels.rate_by_field).toEqual([]);
  });

  it("reads the field mapping API's answer: leaf fields and multi-fields with their types, over every index", () => {
    const answer = {
      "logs-1": { mappings: { "fields": { full_name: "fields", mapping: { fields: { type: "flat_object" } } }, "dyn.keyword": { full_name: "dyn.keyword", mapping: { keyword: { type: "keyword" } } } } },
      "logs-2": { mappings: { "fields": { full_name: "fields", mapping: { fields: { type: "object", enabled: false } } } } },
      "logs-3": { mappings: {} },
    };
    expect(toFieldTypes(answer)).toEqual(new Map([["fields", ["flat_object", "object"]], ["dyn.keyword", ["keyword"]]]));
    expect(toFieldTypes(undefined)).toEqual(new Map());
  });

  it("through the route: an explicit `by` the index does not map is a 400 naming by; no `by` is a 200", async () => {
    const service = { engine: engineMapping(mapping), options: resolveDedupOptions({ index: "stats-by" }) } as DedupService;
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
    const refused = await request(app).get("/v1/stats").query({ by: "no.such.field" });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.error).toEqual({ code: "INVALID_INPUT", field: "by", message: expect.stringContaining('by "no.such.field" is not a field in the mapping of index "stats-by"') });
    expect((await request(app).get("/v1/stats")).status).toBe(200);
    expect((await request(app).get("/v1/stats").query({ by: "fields.source" })).status).toBe(200);
    expect((await request(app).get("/v1/stats").query({ by: "neardup.reason" })).status).toBe(200);
  });
});
