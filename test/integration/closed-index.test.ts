/**
 * A check on a closed index is the engine's error, not "original": the
 * candidate search skipped a closed index in silence (`ignore_unavailable`),
 * and `/v1/check` answered 200 "original" for a text whose near-duplicate was
 * stored (found by an engine-fault audit). Writes already failed there.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG_ZH, variants } from "../fixtures/texts/near-duplicates.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { engineTargets } from "../helpers/engines.js";

const json = "application/json";

describe.each(engineTargets())("a closed index on $kind $version ($source)", (target) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target);
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: unknown) => request(h.app).post(path).set("Content-Type", json).send(JSON.stringify(body));
  const engineCall = (method: string, path: string) =>
    fetch(`${target.url}${path}`, { method, headers: target.username ? { authorization: `Basic ${Buffer.from(`${target.username}:${target.password}`).toString("base64")}` } : {} });

  it("a check and a search answer the engine's error while the index is closed, and the stored near-duplicate once it is open", async () => {
    const [first, second] = variants(LONG_ZH, 2);
    expect((await post("/v1/documents", { id: "closed-a", text: first })).status).toBe(201);
    await h.engine.refresh(h.index);
    expect((await post("/v1/check", { text: second })).body).toMatchObject({ status: "duplicate", duplicate_of: "closed-a" });
    expect((await engineCall("POST", `/${h.index}/_close`)).status).toBe(200);
    try {
      const check = await post("/v1/check", { text: second });
      expect(check.status).toBe(502);
      expect(check.body.error.code).toBe("ENGINE_ERROR");
      expect(check.body.error.message).toContain("index_closed_exception");
      const search = await post("/v1/search", { text: second });
      expect(search.status).toBe(502);
    } finally {
      expect((await engineCall("POST", `/${h.index}/_open?wait_for_active_shards=1`)).status).toBe(200);
    }
    expect((await post("/v1/check", { text: second })).body).toMatchObject({ status: "duplicate", duplicate_of: "closed-a" });
  });

  it("a check on an index that does not exist finds nothing (it holds nothing)", async () => {
    const other = await startApi(target);
    try {
      await other.engine.deleteIndex(other.index);
      const check = await request(other.app).post("/v1/check").set("Content-Type", json).send(JSON.stringify({ text: LONG_ZH }));
      expect(check.status).toBe(200);
      expect(check.body).toMatchObject({ status: "original", matches: [] });
    } finally {
      await other.close();
    }
  });
});
