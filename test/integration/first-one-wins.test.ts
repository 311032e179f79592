/**
 * Issue 11: first one wins under retries, failures and arrival order, against
 * the real engines. Faults (a refused item, a slow write, a slow search) are
 * injected around the real engine by test/helpers/faulty-engine.ts.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { sharedFingerprinter, startApi, type ApiHarness } from "../helpers/api.js";
import { faultyDedupService } from "../helpers/faulty-engine.js";
import { LONG_ZH, NEWS_EN, RECIPE_EN, englishVariants, variants } from "../fixtures/texts/near-duplicates.js";
import { DedupService, type IndexResult } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { parseDocInput } from "../../src/service/input.js";
import { NeardupError } from "../../src/core/errors.js";
import type { Engine } from "../../src/engine/types.js";

const json = "application/json";
const [T, T1, T2] = variants(LONG_ZH, 3) as [string, string, string];

async function faultyService(engine: Engine, recentWindowMs = 30_000) {
  const index = uniqueIndex("neardup-fow");
  return { ...(await faultyDedupService(engine, await sharedFingerprinter(), { index, recentWindowMs })), index };
}

const doc = (raw: Record<string, unknown>) => parseDocInput(raw);
const ok = (r: IndexResult | NeardupError | undefined): IndexResult => {
  if (!r || r instanceof NeardupError) throw new Error(`expected a result, got ${r instanceof Error ? `${r.code}: ${r.message}` : String(r)}`);
  return r;
};

describe.each(engineTargets())("first one wins on $kind $version ($source)", (target) => {
  let h: ApiHarness;
  let engine: Engine;

  beforeAll(async () => {
    h = await startApi(target);
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await h.close();
    await engine.close();
  });

  const post = (path: string, body: unknown) => request(h.app).post(path).set("Content-Type", json).send(JSON.stringify(body));

  it.each(["mark", "skip", "reject"] as const)("a re-sent original stays the original of its cluster (policy %s)", async (policy) => {
    const api = await startApi(target); // a fresh index for each policy
    const send = (path: string, body: unknown) => request(api.app).post(path).set("Content-Type", json).send(JSON.stringify(body));
    const base = englishVariants(RECIPE_EN, 2);
    expect((await send(`/v1/documents?policy=${policy}`, { id: "a", text: base[0] })).body).toMatchObject({ status: "original" });
    const second = await send(`/v1/documents?policy=mark`, { id: "b", text: base[1] });
    expect(second.body).toMatchObject({ status: "duplicate", duplicate_of: "a" });
    // The client retries A after a 503 it never saw the end of: the same body again.
    const again = await send(`/v1/documents?policy=${policy}`, { id: "a", text: base[0] });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: "a", status: "original", action: "indexed", duplicate_of: null });
    await api.engine.refresh(api.index);
    const stored = await api.engine.get<{ neardup: { status: string; duplicate_of?: string } }>(api.index, "a");
    expect(stored?.neardup.status).toBe("original");
    expect(stored?.neardup.duplicate_of).toBeUndefined();
    const cluster = await request(api.app).get("/v1/documents/a/duplicates");
    expect(cluster.body.original).toBe("a");
    expect(cluster.body.members.map((m: { id: string }) => m.id)).toEqual(["a", "b"]);
    await api.close();
  });

  it.each(["skip", "mark"] as const)("a document re-sent with another text is no longer a candidate for its old text, before the refresh (policy %s)", async (policy) => {
    const api = await startApi(target); // a fresh index for each policy
    const send = (path: string, body: unknown) => request(api.app).post(path).set("Content-Type", json).send(JSON.stringify(body));
    const [t, tEdited] = englishVariants(RECIPE_EN, 2);
    const [other] = englishVariants(NEWS_EN, 1);
    expect((await send("/v1/documents", { id: "x", text: t })).body).toMatchObject({ status: "original" });
    await api.engine.refresh(api.index); // the engine's search shows X with its first text
    expect((await send("/v1/documents", { id: "x", text: other })).status).toBe(201);
    // At once: the engine may still show X's first text, but X no longer has it.
    const y = await send(`/v1/documents?policy=${policy}`, { id: "y", text: tEdited });
    expect(y.body).toMatchObject({ id: "y", status: "original", action: "indexed" });
    await api.engine.refresh(api.index);
    expect(await api.engine.get(api.index, "y")).toBeDefined();
    await api.close();
  });

  it("a re-sent duplicate is never a duplicate of itself, and stays a duplicate of its original", async () => {
    const texts = englishVariants(NEWS_EN, 3);
    await post("/v1/documents", { id: "dr-a", text: texts[0] });
    await post("/v1/documents", { id: "dr-b", text: texts[1] });
    const again = await post("/v1/documents", { id: "dr-b", text: texts[1] });
    expect(again.body).toMatchObject({ id: "dr-b", status: "duplicate", duplicate_of: "dr-a" });
  });

  it.each(["skip", "mark", "reject"] as const)("a near-duplicate of an original the engine could not store for now is not acknowledged (policy %s)", async (policy) => {
    const { service, faults, index } = await faultyService(engine);
    faults.overload.add("dep-a");
    const results = await service.index([doc({ id: "dep-a", text: T, time: 1000 }), doc({ id: "dep-b", text: T1, time: 2000 })], policy);
    expect(results[0]).toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect(results[1]).toMatchObject({ code: "RETRY", status: 503 });
    await engine.refresh(index);
    expect(await engine.get(index, "dep-a")).toBeUndefined();
    expect(await engine.get(index, "dep-b")).toBeUndefined();
    // Sent again, B is decided again: now it is the first of its kind.
    const again = await service.index([doc({ id: "dep-b", text: T1, time: 2000 })], policy);
    expect(ok(again[0])).toMatchObject({ status: "original", action: "indexed" });
    await engine.deleteIndex(index);
  });

  it.each(["skip", "mark", "reject"] as const)("a near-duplicate of an original the engine refused for its content is decided again without it, and stored (policy %s)", async (policy) => {
    const { service, faults, index } = await faultyService(engine);
    faults.refuse.add("ref-a");
    const results = await service.index([doc({ id: "ref-a", text: T, time: 1000 }), doc({ id: "ref-b", text: T1, time: 2000 })], policy);
    expect(results[0]).toMatchObject({ code: "INVALID_INPUT", status: 400 });
    expect(ok(results[1])).toMatchObject({ id: "ref-b", status: "original", action: "indexed" });
    await engine.refresh(index);
    expect(await engine.get(index, "ref-a")).toBeUndefined();
    expect(await engine.get(index, "ref-b")).toMatchObject({ neardup: { status: "original" } });
    await engine.deleteIndex(index);
  });

  it("a duplicate in another request waits for its original's write and fails with it", async () => {
    const { service, faults, index } = await faultyService(engine);
    faults.overload.add("wait-a");
    const release = faults.holdWrite("wait-a");
    const first = service.index([doc({ id: "wait-a", text: T })], "mark");
    const settle = async (what: string, done: () => boolean) => {
      for (let i = 0; i < 400 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
      expect(done(), what).toBe(true);
    };
    await settle("A decided, its write held back", () => !faults.heldWrites.has("wait-a"));
    // B is looked up while A's write is held (not for a fixed time, which a loaded machine may outrun).
    const issued = faults.searches.issued;
    let answered = false;
    const pending = service.index([doc({ id: "wait-b", text: T1 })], "skip").then((r) => ((answered = true), r));
    await settle("B's lookups answered", () => faults.searches.issued > issued && faults.searches.answered === faults.searches.issued);
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false); // B waits for A's write
    release();
    const second = await pending;
    expect(second[0]).toBeInstanceOf(NeardupError);
    expect((second[0] as NeardupError).code).toBe("RETRY");
    expect((await first)[0]).toBeInstanceOf(NeardupError);
    await engine.deleteIndex(index);
  });

  it("the earlier arrival is the original even when its engine lookup is the slower one", async () => {
    const { service, faults, index } = await faultyService(engine);
    faults.slowSearchMs = 800; // the first request's engine lookups are slow
    const first = service.index([doc({ id: "order-a", text: T, time: 1000 })], "mark");
    await new Promise((r) => setTimeout(r, 50));
    faults.slowSearchMs = 0;
    const second = service.index([doc({ id: "order-b", text: T1, time: 2000 })], "mark");
    const [[a], [b]] = await Promise.all([first, second]);
    expect(ok(a)).toMatchObject({ id: "order-a", status: "original" });
    expect(ok(b)).toMatchObject({ id: "order-b", status: "duplicate", duplicate_of: "order-a" });
    await engine.deleteIndex(index);
  });

  it("a write slower than the recent-writes window still shadows its near-duplicates", async () => {
    const { service, faults, index } = await faultyService(engine, 1500);
    faults.slowWrite.set("slow-a", 2500); // longer than the 1.5 s window
    const first = service.index([doc({ id: "slow-a", text: T })], "mark");
    await new Promise((r) => setTimeout(r, 1800));
    const [b] = await service.index([doc({ id: "slow-b", text: T1 })], "mark");
    expect(ok(b)).toMatchObject({ status: "duplicate", duplicate_of: "slow-a" });
    expect(ok((await first)[0])).toMatchObject({ status: "original" });
    await engine.deleteIndex(index);
  });

  it("a write whose answer was lost and that lands after the window still shadows its near-duplicates, and leaves once stored (audit 13, E4)", async () => {
    const { service, faults, index } = await faultyService(engine, 1500);
    faults.landLater.add("late-a");
    const [a] = await service.index([doc({ id: "late-a", text: T })], "mark");
    expect((a as NeardupError).message).toMatch(/may have been written/);
    // Longer than the engine's refresh (1 s), the visibility watch's fallback (3 s) and the 1.5 s window together.
    await new Promise((r) => setTimeout(r, 5000));
    const [b] = await service.index([doc({ id: "late-b", text: T1 })], "mark");
    expect(ok(b)).toMatchObject({ status: "duplicate", duplicate_of: "late-a" });
    await faults.land(); // the engine carries out the write it never answered
    for (let k = 0; k < 100 && service.recentWindow.entries > 0; k++) await new Promise((r) => setTimeout(r, 200));
    expect(service.recentWindow.entries).toBe(0); // found, then left the window as a written document does
    const [c] = await service.index([doc({ id: "late-c", text: T2 })], "mark");
    expect(ok(c)).toMatchObject({ status: "duplicate", duplicate_of: "late-a" });
    await engine.deleteIndex(index);
  });

  it("a service started again over the index (its window lost, lease off) sees the last writes before deciding, with a refresh interval longer than the restart (audit 17, C1)", async () => {
    const fp = await sharedFingerprinter();
    const index = uniqueIndex("neardup-restart");
    await engine.createIndex(index, { settings: { index: { refresh_interval: "60s" } } });
    const options = resolveDedupOptions({ index, recentWindowMs: 90_000 });
    const before = new DedupService(engine, fp, options);
    await before.ensureIndex();
    expect(ok((await before.index([doc({ id: "restart-a", text: T })], "mark"))[0])).toMatchObject({ status: "original" });
    const after = new DedupService(engine, fp, options); // a new process: an empty recent-writes window
    await after.ensureIndex();
    const [b] = await after.index([doc({ id: "restart-b", text: T1 })], "mark");
    expect(ok(b)).toMatchObject({ status: "duplicate", duplicate_of: "restart-a" });
    await engine.deleteIndex(index);
  });

  it("writes of one id land in decision order even when the first write is slower", async () => {
    const { service, faults, index } = await faultyService(engine);
    faults.slowWrite.set("same-id", 600);
    const first = service.index([doc({ id: "same-id", text: T, fields: { v: 1 } })], "mark");
    await new Promise((r) => setTimeout(r, 100));
    faults.slowWrite.delete("same-id");
    const second = service.index([doc({ id: "same-id", text: T2, fields: { v: 2 } })], "mark");
    await Promise.all([first, second]);
    const stored = await engine.get<{ fields: { v: number } }>(index, "same-id");
    expect(stored?.fields.v).toBe(2);
    await engine.deleteIndex(index);
  });

  it("refuses a recent-writes window no longer than the index's refresh interval, and an index with refresh disabled", async () => {
    const fp = await sharedFingerprinter();
    for (const [interval, windowMs, problem] of [["5s", 2000, /refresh interval/], ["-1", 30_000, /refresh disabled/]] as const) {
      const index = uniqueIndex("neardup-refresh");
      await engine.createIndex(index, { settings: { index: { refresh_interval: interval } } });
      const service = new DedupService(engine, fp, resolveDedupOptions({ index, recentWindowMs: windowMs }));
      await expect(service.ensureIndex()).rejects.toThrow(problem);
      await engine.deleteIndex(index);
    }
    const index = uniqueIndex("neardup-refresh");
    await engine.createIndex(index, { settings: { index: { refresh_interval: "2s" } } });
    const service = new DedupService(engine, fp, resolveDedupOptions({ index, recentWindowMs: 5000 }));
    await service.ensureIndex();
    expect(await service.learnRefreshInterval()).toBe(2000);
    await engine.deleteIndex(index);
  });
});
