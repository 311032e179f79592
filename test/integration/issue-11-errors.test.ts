/**
 * Issue 11, items 6 and 7: errors keep their meaning, one refused item fails
 * only itself, `fields` cannot exhaust the index's field limit, and ids must be
 * well-formed Unicode. Against every real engine.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { templates, type Engine } from "../../src/engine/index.js";
import { MOM_A, MOM_B } from "../fixtures/texts/near-duplicates.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";
import { expectSchema } from "../helpers/openapi.js";

const json = "application/json";

/** Distinct texts (no two are near-duplicates of each other). */
const TEXTS = [
  "The harbour ferry to the northern islands leaves at seven every morning from pier four.",
  "Quarterly revenue of the bakery chain rose on strong demand for sourdough and rye loaves.",
  "A new species of beetle was described from leaf litter collected in the cloud forest last spring.",
  "The chess club meets on Thursday evenings in the back room of the public library downtown.",
  "Volunteers repaired forty bicycles at the weekend workshop and gave them to the school.",
  "Heavy snowfall closed the mountain pass for two days and stranded several freight trucks.",
  "The orchestra announced a season of Baltic composers with three premieres in the autumn.",
  "Researchers measured groundwater levels in the delta every week for an entire decade.",
];

function post(h: ApiHarness, path: string, body: unknown) {
  return request(h.app).post(path).set("Content-Type", json).send(JSON.stringify(body));
}

async function storedIds(h: ApiHarness): Promise<string[]> {
  await h.engine.refresh(h.index);
  const all = await h.engine.search<unknown>({ index: h.index, body: { size: 1000, _source: false, query: { match_all: {} } } });
  return all.hits.hits.map((hit) => hit._id).sort();
}

describe.each(engineTargets())("issue 11 errors on $kind $version ($source)", (target) => {
  describe("an index neardup creates", () => {
    let h: ApiHarness;
    beforeAll(async () => {
      // A name the documents template does not match: the mapping is the one ensureIndex gives.
      const index = uniqueIndex("issue-11-own");
      h = await startApi(target, { index, dedup: { maxBulkItems: 50 } });
    });
    afterAll(async () => {
      await h.close();
    });

    it("stores fields whose types differ between documents, in one bulk", async () => {
      const res = await post(h, "/v1/documents/_bulk", [
        { id: "ty-1", text: TEXTS[0], fields: { n: 1 } },
        { id: "ty-2", text: TEXTS[1], fields: { n: { x: 1 } } },
        { id: "ty-3", text: TEXTS[2], fields: { n: "text", tags: ["a", "b"], ok: true } },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: { status: number }) => i.status)).toEqual([201, 201, 201]);
      expect(await storedIds(h)).toEqual(expect.arrayContaining(["ty-1", "ty-2", "ty-3"]));
      expect(await h.engine.get<{ fields: unknown }>(h.index, "ty-2")).toMatchObject({ fields: { n: { x: 1 } } });
    });

    it("1,100 distinct keys sent by one client do not break anything for anyone", async () => {
      for (let d = 0; d < 11; d++) {
        const fields = Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`client1_key_${d}_${k}`, k]));
        const res = await post(h, "/v1/documents", { id: `keys-${d}`, text: `${TEXTS[3]} Batch number ${d} of the key flood.`, fields });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
      const other = await post(h, "/v1/documents", { id: "other-client", text: TEXTS[4], fields: { brand_new_key: "still fine" } });
      expect(other.status, JSON.stringify(other.body)).toBe(201);
      // fields stays searchable by key and value
      await h.engine.refresh(h.index);
      const found = await h.engine.search<unknown>({ index: h.index, body: { _source: false, query: { term: { "fields.brand_new_key": "still fine" } } } });
      expect(found.hits.hits.map((hit) => hit._id)).toEqual(["other-client"]);
    });

    it("refuses fields nested too deep, or with bad key names, with a 400 naming the path", async () => {
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 0; i < 25; i++) deep = { [`l${i}`]: deep };
      const tooDeep = await post(h, "/v1/documents", { text: TEXTS[5], fields: deep });
      expect(tooDeep.status).toBe(400);
      expectSchema(tooDeep.body, "Error");
      expect(tooDeep.body.error.code).toBe("INVALID_INPUT");
      expect(tooDeep.body.error.field).toMatch(/^fields\.l24\.l23\./);
      expect(tooDeep.body.error.message).toMatch(/deeper than/);

      const badKey = await post(h, "/v1/documents/_bulk", [
        { id: "bk-ok", text: TEXTS[6] },
        { id: "bk-bad", text: TEXTS[7], fields: { a: { "": 1 } } },
      ]);
      expect(badKey.status).toBe(200);
      expect(badKey.body.items[0].status).toBe(201);
      expect(badKey.body.items[1].status).toBe(400);
      expect(badKey.body.items[1].error.field).toBe("items[1].fields.a");
      expect(badKey.body.items[1].error.message).toMatch(/empty key/);
    });

    it("refuses ids that are not well-formed Unicode on every path, naming the field", async () => {
      const lone = "ls-\ud800";
      const single = await post(h, "/v1/documents", { id: lone, text: TEXTS[0] });
      expect(single.status).toBe(400);
      expect(single.body.error).toMatchObject({ code: "INVALID_INPUT", field: "id" });
      expect(single.body.error.message).toMatch(/surrogate/);

      const bulk = await post(h, "/v1/documents/_bulk", [
        { id: "ls-\udbff", text: TEXTS[1] },
        { id: "ls-fine", text: TEXTS[2] },
      ]);
      expect(bulk.body.items[0]).toMatchObject({ status: 400, error: { field: "items[0].id" } });
      expect(bulk.body.items[1].status).toBe(201);

      const check = await post(h, "/v1/check", { id: lone, text: TEXTS[0] });
      expect(check.status).toBe(400);
      expect(check.body.error.field).toBe("id");
      const search = await post(h, "/v1/search", { id: lone });
      expect(search.status).toBe(400);
      expect(search.body.error.field).toBe("id");

      // A path segment cannot carry a lone surrogate except as broken percent-encoding.
      const path = await request(h.app).get("/v1/documents/ls-%ED%A0%80/duplicates");
      expect(path.status).toBe(400);
      expectSchema(path.body, "Error");
      expect(path.body.error).toMatchObject({ code: "INVALID_INPUT", field: "id" });

      expect((await storedIds(h)).filter((id) => id.startsWith("ls-"))).toEqual(["ls-fine"]);
    });
  });

  describe("the user's own index with a typed fields mapping", () => {
    let h: ApiHarness;
    beforeAll(async () => {
      const index = uniqueIndex("issue-11-user");
      h = await startApi(target, {
        index,
        dedup: { maxBulkItems: 50 },
        prepare: async (engine: Engine, index: string) => {
          await engine.createIndex(index, {
            settings: { "index.mapping.total_fields.limit": 60 },
            mappings: { properties: { text: { type: "text" }, fields: { properties: { n: { type: "long" } } } } },
          });
        },
      });
    });
    afterAll(async () => {
      await h.close();
    });

    it("a type conflict fails only that item, as a 400 naming the field; its siblings are stored", async () => {
      const res = await post(h, "/v1/documents/_bulk", [
        { id: "own-1", text: TEXTS[0], fields: { n: 1 } },
        { id: "own-2", text: TEXTS[1], fields: { n: "not a number" } },
        { id: "own-3", text: TEXTS[2] },
      ]);
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: { status: number }) => i.status)).toEqual([201, 400, 201]);
      expect(res.body.items[1].error).toMatchObject({ code: "INVALID_INPUT", field: "items[1].fields.n" });
      expect(res.body.items[1].error.message).toMatch(/own-2/);
      expect(await storedIds(h)).toEqual(["own-1", "own-3"]);

      const single = await post(h, "/v1/documents", { id: "own-4", text: TEXTS[3], fields: { n: { deep: true } } });
      expect(single.status).toBe(400);
      expectSchema(single.body, "Error");
      expect(single.body.error).toMatchObject({ code: "INVALID_INPUT", field: "fields.n" });
    });

    // The engine never fails the siblings of a refused item (the two tests above). What could fail a
    // valid sibling is neardup's own decision: one decided against the refused item would be a
    // duplicate of a document that was never stored. Nothing acknowledged without its dependency.
    it("issue 11 item 2: a near-duplicate of a refused item is stored or told to retry, never acknowledged against it", async () => {
      const res = await request(h.app)
        .post("/v1/documents/_bulk?policy=skip")
        .set("Content-Type", json)
        .send(JSON.stringify([
          { id: "dep-a", text: MOM_A, fields: { n: "not a number" } },
          { id: "dep-b", text: MOM_B },
        ]));
      expect(res.body.items[0].status).toBe(400);
      const b = res.body.items[1];
      expect(b.status === 503 || (b.status === 201 && b.result.status === "original"), JSON.stringify(b)).toBe(true);
    });

    it("too many fields is a 400 for that item alone", async () => {
      const many = Object.fromEntries(Array.from({ length: 80 }, (_, k) => [`k${k}`, k]));
      const res = await post(h, "/v1/documents/_bulk", [
        { id: "lim-1", text: TEXTS[4], fields: many },
        { id: "lim-2", text: TEXTS[5] },
      ]);
      expect(res.body.items.map((i: { status: number }) => i.status)).toEqual([400, 201]);
      expect(res.body.items[0].error).toMatchObject({ code: "INVALID_INPUT", field: "items[0].fields" });
      expect(res.body.items[0].error.message).toMatch(/[Ll]imit of total fields/);
    });
  });

  describe("shards that are not available (an engine restart)", () => {
    let h: ApiHarness;
    beforeAll(async () => {
      h = await startApi(target, { dedup: { maxBulkItems: 50 } });
      // The index again, with its only shard not assignable: what a restarting node looks like to a search.
      // (A new index: Elasticsearch force-allocates an existing primary whatever the allocation filter says.)
      await h.engine.deleteIndex(h.index);
      const { mappings } = templates().component.template as { mappings: unknown };
      await rawEngineRequest(target, "PUT", `/${h.index}?wait_for_active_shards=0`, {
        settings: { "index.routing.allocation.require._name": "no-such-node", "index.number_of_replicas": 0 },
        mappings,
      });
    });
    afterAll(async () => {
      await h.close();
    });

    it("answers a retryable 503 with Retry-After for single lookups and bulk lookups (_msearch)", async () => {
      const check = await post(h, "/v1/check", { text: TEXTS[1] });
      expect(check.status, JSON.stringify(check.body)).toBe(503);
      expect(check.headers["retry-after"]).toBe("5");
      expect(check.body.error.code).toBe("ENGINE_UNAVAILABLE");

      const bulk = await post(h, "/v1/documents/_bulk", [
        { id: "b-1", text: TEXTS[2] },
        { id: "b-2", text: TEXTS[3] },
      ]);
      expect(bulk.status, JSON.stringify(bulk.body)).toBe(503);
      expect(bulk.headers["retry-after"]).toBe("5");
      expect(bulk.body.error.code).toBe("ENGINE_UNAVAILABLE");
      expect(bulk.body.error.message).toMatch(/all shards failed/);
    });

    it("works again once the shard is back", async () => {
      await rawEngineRequest(target, "PUT", `/${h.index}/_settings`, { "index.routing.allocation.require._name": null });
      await rawEngineRequest(target, "GET", `/_cluster/health/${h.index}?wait_for_status=yellow&timeout=60s`);
      const res = await post(h, "/v1/documents/_bulk", [
        { id: "b-1", text: TEXTS[2] },
        { id: "b-2", text: TEXTS[3] },
      ]);
      expect(res.body.items.map((i: { status: number }) => i.status)).toEqual([201, 201]);
    });
  });
});
