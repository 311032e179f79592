/**
 * What the engine shows, and when: the API against engine states that a
 * running service meets (src/service/visibility.ts, dedup-service.ts).
 *
 * - A refresh that ends later than the refresh interval (the engine under
 *   load: a several-sidecars audit measured 2.2 s from acknowledgement to
 *   searchable with a 1 s interval). The recent-writes window keeps an
 *   acknowledged write until a refresh that started after it is known to have
 *   ended. The lag is made deterministic here: the index's refresh interval is
 *   raised to 4 s after the service learned 1 s. Before, the window dropped the
 *   original 1 s after its acknowledgement, and its near-duplicate sent 1.5 s
 *   later was stored as a second original.
 * - A closed index: the candidate search skipped it in silence
 *   (`ignore_unavailable`), and `/v1/check` answered "original" for a text
 *   whose near-duplicate was stored (an engine-fault audit).
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG_ZH, variants } from "../fixtures/texts/near-duplicates.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { engineTargets, rawEngineRequest } from "../helpers/engines.js";

const json = "application/json";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(engineTargets())("engine states on $kind $version ($source)", (target) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target);
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (app: ApiHarness["app"], path: string, body: unknown) => request(app).post(path).set("Content-Type", json).send(JSON.stringify(body));

  it("a refresh that ends late: the original stays in the window until the engine shows it, so its near-duplicate sent 1.5 s later is a duplicate", async () => {
    const [first, second] = variants(LONG_ZH, 2);
    await rawEngineRequest(target, "PUT", `/${h.index}/_settings`, { index: { refresh_interval: "4s" } }); // the service learned 1 s at start
    try {
      const a = await post(h.app, "/v1/documents", { id: "late-a", text: first });
      expect(a.status).toBe(201);
      expect(a.body.status).toBe("original");
      await sleep(1500); // past the interval the service knows, before the engine's next refresh
      const b = await post(h.app, "/v1/documents", { id: "late-b", text: second });
      expect(b.status).toBe(201);
      expect(b.body).toMatchObject({ status: "duplicate", duplicate_of: "late-a" });
    } finally {
      await rawEngineRequest(target, "PUT", `/${h.index}/_settings`, { index: { refresh_interval: "1s" } });
    }
  });

  it("a closed index: a check and a search answer the engine's error, and the stored near-duplicate once it is open again", async () => {
    const [first, second] = variants(LONG_ZH, 2);
    expect((await post(h.app, "/v1/documents", { id: "closed-a", text: first })).status).toBe(201);
    await h.engine.refresh(h.index);
    expect((await post(h.app, "/v1/check", { text: second })).body).toMatchObject({ status: "duplicate" });
    await rawEngineRequest(target, "POST", `/${h.index}/_close`);
    try {
      const check = await post(h.app, "/v1/check", { text: second });
      expect(check.status).toBe(502);
      expect(check.body.error.code).toBe("ENGINE_ERROR");
      expect(check.body.error.message).toContain("index_closed_exception");
      expect((await post(h.app, "/v1/search", { text: second })).status).toBe(502);
      const cluster = await request(h.app).get("/v1/documents/closed-a/duplicates");
      expect(cluster.status).toBe(502); // not "404: does not exist"
      expect(cluster.body.error.message).toContain("index_closed_exception");
      const stats = await request(h.app).get("/v1/stats");
      expect(stats.status).toBe(502); // not a 400 blaming the `by` field
      expect(stats.body.error.message).toContain("index_closed_exception");
    } finally {
      await rawEngineRequest(target, "POST", `/${h.index}/_open?wait_for_active_shards=1`);
    }
    expect((await post(h.app, "/v1/check", { text: second })).body).toMatchObject({ status: "duplicate" });
  });

  it("a check on an index that does not exist finds nothing (it holds nothing)", async () => {
    const other = await startApi(target);
    try {
      await other.engine.deleteIndex(other.index);
      const check = await post(other.app, "/v1/check", { text: LONG_ZH });
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({ status: "original", matches: [] });
    } finally {
      await other.close();
    }
  });
});
