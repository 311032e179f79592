/**
 * First one wins when the engine's refresh ends later than the refresh
 * interval (the engine under load: a several-sidecars audit measured 2.2 s
 * from acknowledgement to searchable with a 1 s interval). The recent-writes
 * window keeps an acknowledged write until a refresh that started after it is
 * known to have ended (src/service/visibility.ts). Here the lag is made
 * deterministic: the index's refresh interval is raised to 4 s after the
 * service learned 1 s, so that only a refresh the service waits for shows the
 * original. Before, the window dropped the original 1 s after its
 * acknowledgement and its near-duplicate, sent 1.5 s after it, was stored as a
 * second original.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LONG_ZH, variants } from "../fixtures/texts/near-duplicates.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { engineTargets } from "../helpers/engines.js";

const json = "application/json";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(engineTargets())("a refresh that ends late on $kind $version ($source)", (target) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target);
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: unknown) => request(h.app).post(path).set("Content-Type", json).send(JSON.stringify(body));
  const setRefresh = (value: string) =>
    fetch(`${target.url}/${h.index}/_settings`, {
      method: "PUT",
      headers: { "content-type": json, ...(target.username ? { authorization: `Basic ${Buffer.from(`${target.username}:${target.password}`).toString("base64")}` } : {}) },
      body: JSON.stringify({ index: { refresh_interval: value } }),
    });

  it("keeps the original in the window until the engine shows it: its near-duplicate sent 1.5 s later is a duplicate", async () => {
    const [first, second] = variants(LONG_ZH, 2);
    expect((await setRefresh("4s")).status).toBe(200); // the service learned 1 s at start
    try {
      const a = await post("/v1/documents", { id: "late-a", text: first });
      expect(a.status).toBe(201);
      expect(a.body.status).toBe("original");
      await sleep(1500); // past the interval the service knows, before the engine's next refresh
      const b = await post("/v1/documents", { id: "late-b", text: second });
      expect(b.status).toBe(201);
      expect(b.body).toMatchObject({ status: "duplicate", duplicate_of: "late-a" });
    } finally {
      expect((await setRefresh("1s")).status).toBe(200);
    }
  });
});
