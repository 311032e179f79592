/**
 * The near-duplicate API against every real engine: verdicts, policies,
 * first-one-wins under concurrency, the window, re-submission, every 4xx,
 * and an engine outage that loses nothing acknowledged.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { totalHits } from "../../src/engine/index.js";
import { LONG_ZH, MOM_A, MOM_B, NEWS_EN, OTHER_ZH, RECIPE_EN, englishVariants, variants } from "../fixtures/texts/near-duplicates.js";
import { sharedFingerprinter, startApi, type ApiHarness } from "../helpers/api.js";
import { engineTargets } from "../helpers/engines.js";
import { expectSchema } from "../helpers/openapi.js";

const json = "application/json";

describe.each(engineTargets())("API on $kind $version ($source)", (target) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target);
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: unknown) => request(h.app).post(path).set("Content-Type", json).send(JSON.stringify(body));

  it("catches the original example pair and explains why", async () => {
    // The rule that fires is the core's verdict for this pair (tested in test/unit/core/verdict.test.ts).
    const rule = (await sharedFingerprinter()).compare(MOM_B, MOM_A).rule;
    expect(rule).toMatch(/\.(cosine|edit)$/);
    const a = await post("/v1/documents", { id: "mom-a", text: MOM_A });
    expect(a.status).toBe(201);
    expectSchema(a.body, "IndexResult");
    expect(a.body).toMatchObject({ id: "mom-a", status: "original", action: "indexed", duplicate_of: null });

    const b = await post("/v1/documents", { id: "mom-b", text: MOM_B });
    expect(b.status).toBe(201);
    expectSchema(b.body, "IndexResult");
    expect(b.body).toMatchObject({ id: "mom-b", status: "duplicate", action: "indexed", duplicate_of: "mom-a", reason: rule });
    expect(b.body.similarity).toBeGreaterThanOrEqual(0.8);

    const stored = await h.engine.get<{ neardup: Record<string, unknown> }>(h.index, "mom-b");
    expect(stored?.neardup).toMatchObject({ status: "duplicate", duplicate_of: "mom-a", reason: rule });
    expect(stored?.neardup.simhash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("does not call unrelated texts duplicates", async () => {
    for (const [id, text] of [["news-en", NEWS_EN], ["other-zh", OTHER_ZH]] as const) {
      const res = await post("/v1/documents", { id, text });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe("original");
    }
    const check = await post("/v1/check", { text: "完全无关的一句话：明天上午九点在图书馆三楼举行读书分享会。" });
    expect(check.status).toBe(200);
    expectSchema(check.body, "Check");
    expect(check.body).toMatchObject({ status: "original", duplicate_of: null, matches: [] });
  });

  it("check answers the verdict and ranked matches without writing", async () => {
    const res = await post("/v1/check", { text: MOM_B.replace("啦", "呀") });
    expect(res.status).toBe(200);
    expectSchema(res.body, "Check");
    expect(res.body.status).toBe("duplicate");
    expect(res.body.duplicate_of).toBe("mom-a");
    expect(res.body.matches.map((m: { id: string }) => m.id).sort()).toEqual(["mom-a", "mom-b"]);
    await h.engine.refresh(h.index);
    const count = await h.engine.search({ index: h.index, body: { query: { match_all: {} }, size: 0, track_total_hits: true } });
    expect(totalHits(count)).toBe(4); // mom-a, mom-b, news-en, other-zh: check wrote nothing
  });

  it("check lists the best `limit` matches and counts them all; the verdict weighs them all", async () => {
    const text = MOM_B.replace("啦", "呀");
    const all = await post("/v1/check", { text, limit: 1000 });
    const one = await post("/v1/check", { text, limit: 1 });
    expect(one.status).toBe(200);
    expectSchema(one.body, "Check");
    expect(all.body.matches).toHaveLength(2);
    expect(all.body.matches_total).toBe(2);
    expect(one.body.matches_total).toBe(2);
    expect(one.body.matches).toEqual([all.body.matches[0]]);
    expect(one.body).toMatchObject({ status: all.body.status, duplicate_of: all.body.duplicate_of, distance: all.body.distance, similarity: all.body.similarity, reason: all.body.reason });
    const bad = await post("/v1/check", { text, limit: 0 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("limit");
  });

  it("search ranks near-duplicates of a text or a stored id, each with why; the cluster lists them", async () => {
    await h.engine.refresh(h.index);
    const byText = await post("/v1/search", { text: MOM_A });
    expect(byText.status).toBe(200);
    expectSchema(byText.body, "Search");
    expect(byText.body.matches[0]).toMatchObject({ id: "mom-a", distance: 0, similarity: 1, duplicate: true });
    expect(byText.body.matches[1]).toMatchObject({ id: "mom-b", duplicate: true, rule: (await sharedFingerprinter()).compare(MOM_A, MOM_B).rule });

    const byId = await post("/v1/search", { id: "mom-b" });
    expect(byId.status).toBe(200);
    expect(byId.body.matches.map((m: { id: string }) => m.id)).toEqual(["mom-a"]);

    const loose = await post("/v1/search", { text: MOM_A, min_similarity: 0.99 });
    expect(loose.body.matches.map((m: { id: string }) => m.id)).toEqual(["mom-a"]);

    const cluster = await request(h.app).get("/v1/documents/mom-b/duplicates");
    expect(cluster.status).toBe(200);
    expectSchema(cluster.body, "Cluster");
    expect(cluster.body.original).toBe("mom-a");
    expect(cluster.body.members.map((m: { id: string }) => m.id)).toEqual(["mom-a", "mom-b"]);

    const missing = await request(h.app).get("/v1/documents/no-such-doc/duplicates");
    expect(missing.status).toBe(404);
    expectSchema(missing.body, "Error");
    expect(missing.body.error.message).toContain('"no-such-doc" does not exist');
  });

  it("a document just written is found by id before the index refresh: its cluster and a search by its id (they were 404)", async () => {
    const id = `fresh-${Date.now()}`;
    const written = await post("/v1/documents", { id, text: `The harbour ferry timetable for route ${id} changes next week; passengers should check the departure board before travelling.` });
    expect(written.status).toBe(201);
    const cluster = await request(h.app).get(`/v1/documents/${id}/duplicates`);
    expect(cluster.status).toBe(200);
    expect(cluster.body.original).toBe(id);
    const byId = await post("/v1/search", { id });
    expect(byId.status).toBe(200);
    // Its near-duplicate, written now, is in the cluster at once (the search shows it only after the refresh).
    const text = `The harbour ferry timetable for route ${id} changes next week; passengers should check the departure board before travelling!`;
    const dup = await post("/v1/documents", { id: `${id}-again`, text });
    expect(dup.body).toMatchObject({ status: "duplicate", duplicate_of: id });
    const both = await request(h.app).get(`/v1/documents/${id}/duplicates`);
    expect(both.body.members).toEqual([
      { id, status: "original", distance: null, similarity: null },
      { id: `${id}-again`, status: "duplicate", distance: dup.body.distance, similarity: dup.body.similarity },
    ]);
    const fromMember = await request(h.app).get(`/v1/documents/${id}-again/duplicates`);
    expect(fromMember.body.members.map((m: { id: string }) => m.id)).toEqual([id, `${id}-again`]);
    // Sent again at once as an original (another text): it leaves A's cluster at once, on both sides.
    await h.engine.refresh(h.index);
    const moved = await post("/v1/documents", { id: `${id}-again`, text: `Unrelated: the museum's winter exhibition of early photography opens on ${id}.` });
    expect(moved.body).toMatchObject({ status: "original" });
    expect((await request(h.app).get(`/v1/documents/${id}/duplicates`)).body.members.map((m: { id: string }) => m.id)).toEqual([id]);
    expect((await request(h.app).get(`/v1/documents/${id}-again/duplicates`)).body).toMatchObject({ original: `${id}-again`, members: [{ id: `${id}-again` }] });
  });

  it("an id sent twice in one bulk is written in the order sent, whatever the times: the last one sent stays (shipper audit)", async () => {
    const id = `twice-${Date.now()}`;
    const first = `First version of ${id}: the river festival moves to the north bank this year because of the bridge works.`;
    const second = `Second version of ${id}: a completely different notice about library opening hours during the winter holidays.`;
    const res = await post("/v1/documents/_bulk", { items: [{ id, text: first, time: "2026-01-02T00:00:00Z" }, { id, text: second, time: "2026-01-01T00:00:00Z" }] });
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { status: number }) => i.status)).toEqual([201, 201]);
    expect((await h.engine.get<{ text: string }>(h.index, id))?.text).toBe(second);
  });

  it("the internal write route checks times as the public routes do, and never makes a document its own duplicate (third audit)", async () => {
    const send = (item: Record<string, unknown>) => request(h.app).post("/v1/internal/documents").set("Content-Type", json).send({ policy: "mark", items: [item] });
    const future = await send({ id: "far", id_given: false, text: "hello there from the future", time: 253402300799999 });
    expect(future.status).toBe(400);
    expect(future.body.error).toMatchObject({ code: "INVALID_INPUT", field: "items[0].time" });
    const item = { id: "self-loop", id_given: false, text: "the same words sent twice through the internal route", time: Date.now() };
    expect((await send(item)).body.items[0].result).toMatchObject({ status: "original" });
    await h.engine.refresh(h.index);
    expect((await send(item)).body.items[0].result).toMatchObject({ id: "self-loop", status: "original", duplicate_of: null });
  });

  it("gives exactly one original among 50 concurrent near-duplicate requests", async () => {
    const texts = variants(LONG_ZH, 50);
    const responses = await Promise.all(texts.map((text, i) => post("/v1/documents", { id: `conc-${i}`, text })));
    expect(responses.map((r) => r.status)).toEqual(texts.map(() => 201));
    const originals = responses.filter((r) => r.body.status === "original");
    expect(originals).toHaveLength(1);
    const originalId = originals[0]!.body.id as string;
    for (const r of responses) if (r.body.id !== originalId) expect(r.body.duplicate_of).toBe(originalId);

    await h.engine.refresh(h.index);
    const stored = await h.engine.search({
      index: h.index,
      body: { size: 0, track_total_hits: true, query: { bool: { filter: [{ prefix: { "neardup.simhash": "" } }, { term: { "neardup.status": "original" } }, { terms: { _id: texts.map((_, i) => `conc-${i}`) } }] } } },
    });
    expect(totalHits(stored)).toBe(1);
  });

  it("decides near-duplicates inside one bulk: the earliest by time is the original", async () => {
    const all = englishVariants(RECIPE_EN, 8);
    const texts = [all[0]!, all[3]!, all[4]!, all[7]!]; // within distance 4 of each other
    const docs = texts.map((text, i) => ({ id: `bulk-${i}`, text, time: 1_790_000_000_000 - i * 1000 }));
    const res = await post("/v1/documents/_bulk", docs);
    expect(res.status).toBe(200);
    expectSchema(res.body, "Bulk");
    expect(res.body.errors).toBe(false);
    // Results stay in request order; bulk-3 has the earliest time, so it is the original.
    const results = res.body.items.map((i: { status: number; result: { id: string; status: string; duplicate_of: string | null } }) => [i.status, i.result.id, i.result.status, i.result.duplicate_of]);
    expect(results).toEqual([
      [201, "bulk-0", "duplicate", "bulk-3"],
      [201, "bulk-1", "duplicate", "bulk-3"],
      [201, "bulk-2", "duplicate", "bulk-3"],
      [201, "bulk-3", "original", null],
    ]);
  });

  it("accepts NDJSON bulk bodies; a bad line fails alone, with its position", async () => {
    const lines = [JSON.stringify({ id: "nd-1", text: "Parking permits for residents renew on the first of March." }), "{not json", JSON.stringify({ id: "nd-3", text: 42 }), ""];
    const res = await request(h.app).post("/v1/documents/_bulk").set("Content-Type", "application/x-ndjson").send(lines.join("\n"));
    expect(res.status).toBe(200);
    expectSchema(res.body, "Bulk");
    expect(res.body.errors).toBe(true);
    expect(res.body.items).toHaveLength(3);
    expect(res.body.items[0]).toMatchObject({ status: 201, result: { id: "nd-1", status: "original" } });
    expect(res.body.items[1]).toMatchObject({ status: 400, error: { code: "INVALID_INPUT", field: "items[1]" } });
    expect(res.body.items[1].error.message).toMatch(/^line 2 is not valid JSON/);
    expect(res.body.items[2]).toMatchObject({ status: 400, error: { code: "INVALID_INPUT", field: "items[2].text", message: "items[2].text must be a string" } });
    expect(await h.engine.get(h.index, "nd-1")).toBeDefined();
  });

  it("applies each policy: mark indexes, skip drops, reject refuses with 409 naming the original", async () => {
    const base = NEWS_EN.replace("Tuesday", "Monday");
    const first = await post("/v1/documents", { id: "pol-0", text: `${base} Filed under: city.` });
    expect(first.status).toBe(201);
    const original = first.body.status === "original" ? "pol-0" : first.body.duplicate_of;

    const skip = await request(h.app).post("/v1/documents?policy=skip").set("Content-Type", json).send({ id: "pol-skip", text: `${base} Filed under: town.` });
    expect(skip.status).toBe(200);
    expectSchema(skip.body, "IndexResult");
    expect(skip.body).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: original });
    expect(await h.engine.get(h.index, "pol-skip")).toBeUndefined();

    const reject = await request(h.app).post("/v1/documents?policy=reject").set("Content-Type", json).send({ id: "pol-reject", text: `${base} Filed under: roads.` });
    expect(reject.status).toBe(409);
    expectSchema(reject.body, "Rejected");
    expect(reject.body.error.code).toBe("CONFLICT");
    expect(reject.body.error.message).toContain(`near-duplicate of "${original}"`);
    expect(await h.engine.get(h.index, "pol-reject")).toBeUndefined();

    const mark = await request(h.app).post("/v1/documents?policy=mark").set("Content-Type", json).send({ id: "pol-mark", text: `${base} Filed under: transport.` });
    expect(mark.status).toBe(201);
    expect(mark.body).toMatchObject({ status: "duplicate", action: "indexed", duplicate_of: original });
    expect(await h.engine.get(h.index, "pol-mark")).toMatchObject({ neardup: { status: "duplicate", duplicate_of: original } });
  });

  it("treats re-submission of the same id as an update, never a duplicate of itself", async () => {
    const text = "Quarterly maintenance notice: the east wing elevators will be out of service on Saturday morning.";
    const one = await post("/v1/documents", { id: "resub", text });
    const two = await post("/v1/documents", { id: "resub", text: `${text} ` });
    expect(one.body.status).toBe("original");
    expect(two.status).toBe(201);
    expect(two.body).toMatchObject({ id: "resub", status: "original", duplicate_of: null });
    await h.engine.refresh(h.index);
    const again = await post("/v1/documents", { id: "resub", text });
    expect(again.body.status).toBe("original");
  });

  it("compares only within the dedup window of the document's time", async () => {
    const text = "Library opening hours change next week: weekdays nine to nine, weekends ten to six, holidays closed.";
    const old = await post("/v1/documents", { id: "win-old", text, time: "2026-01-01T00:00:00Z" });
    expect(old.body.status).toBe("original");
    await h.engine.refresh(h.index);
    const threeDaysLater = await post("/v1/documents", { id: "win-new", text, time: "2026-01-04T00:00:00Z" });
    expect(threeDaysLater.body.status).toBe("original"); // outside the 2-day window
    const oneDayLater = await post("/v1/documents", { id: "win-mid", text, time: "2026-01-02T00:00:00Z" });
    expect(oneDayLater.body).toMatchObject({ status: "duplicate", duplicate_of: "win-old" });
  });

  it("serves metrics counting checks and duplicates", async () => {
    const res = await request(h.app).get("/metrics");
    expect(res.text).toMatch(/neardup_checks_total\{operation="index"\} [1-9]\d*/);
    expect(res.text).toMatch(/neardup_duplicates_found_total\{policy="mark"\} [1-9]\d*/);
    expect(res.text).toMatch(/neardup_candidates_per_check_count [1-9]\d*/);
  });
});
