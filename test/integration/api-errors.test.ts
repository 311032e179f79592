/**
 * Every 4xx path of the API names the field and the problem, and an engine
 * outage gives 503 with Retry-After while losing nothing acknowledged.
 */
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { totalHits } from "../../src/engine/index.js";
import { httpForwarder } from "../../src/server/peer.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { engineTargets } from "../helpers/engines.js";
import { expectSchema } from "../helpers/openapi.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const json = "application/json";

describe.each(engineTargets())("API errors on $kind $version ($source)", (target) => {
  let h: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target, { fingerprinter: { maxTextLength: 2000 }, dedup: { maxBulkItems: 5 }, bodyLimit: "64kb" });
  });
  afterAll(async () => {
    await h.close();
  });

  const cases: [string, string, string | Record<string, unknown> | unknown[], number, string, RegExp][] = [
    ["/v1/documents", "invalid JSON", '{"text": "abc"', 400, "body", /^request body is not valid JSON/],
    ["/v1/documents", "a non-object body", [1, 2], 400, "body", /^body must be a JSON object/],
    ["/v1/documents", "missing text", { id: "x" }, 400, "text", /^text is required$/],
    ["/v1/documents", "text of the wrong type", { text: 12 }, 400, "text", /^text must be a string$/],
    ["/v1/documents", "empty text", { text: "" }, 400, "text", /empty/],
    ["/v1/documents", "white-space text", { text: " \t\n " }, 400, "text", /white space/],
    ["/v1/documents", "a lone surrogate", { text: "abc\ud800def" }, 400, "text", /surrogate/],
    ["/v1/documents", "text over the limit", { text: "长".repeat(2001) }, 413, "text", /2,?000/],
    ["/v1/documents", "an unknown field", { text: "hello there", colour: "red" }, 400, "colour", /^colour is not a known field$/],
    ["/v1/documents", "an id starting with _", { id: "_x", text: "hello there" }, 400, "id", /underscore/],
    ["/v1/documents", "a bad time", { text: "hello there", time: "yesterday-ish" }, 400, "time", /^time must be an ISO-8601 date or epoch milliseconds/],
    ["/v1/documents", "a time that is null", { text: "hello there", time: null }, 400, "time", /^time must be an ISO-8601 date or epoch milliseconds, got null$/],
    ["/v1/documents", "fields that are not an object", { text: "hello there", fields: "x" }, 400, "fields", /fields/],
    ["/v1/documents", "an oversized body", { text: "x".repeat(70_000) }, 413, "body", /larger than the limit/],
    ["/v1/check", "check without text", {}, 400, "text", /^text is required$/],
    // "text give exactly one of text or id" (audit 22a, F6).
    ["/v1/search", "search with both text and id", { text: "a", id: "b" }, 400, "text", /^text must not be given with id: give exactly one of text or id$/],
    ["/v1/search", "search with neither", {}, 400, "text", /^text is required \(or id\): give exactly one of text or id$/],
    // "radius must be an int, got a number" (audit 22a, F7).
    ["/v1/search", "a radius with a fraction", { text: "hello", radius: 1.5 }, 400, "radius", /^radius must be an integer, got 1\.5$/],
    ["/v1/check", "a limit with a fraction", { text: "hello", limit: 2.5 }, 400, "limit", /^limit must be an integer, got 2\.5$/],
    // Too large for JSON: the range, not "send it as a string", which these refuse (audit 22a, F5).
    ["/v1/check", "a limit past 2^53", '{"text":"x","limit":9007199254740993}', 400, "limit", /^limit must be an integer from 1 to 1000, got 9007199254740993$/],
    ["/v1/check", "a limit past the double range", '{"text":"x","limit":1e400}', 400, "limit", /^limit must be an integer from 1 to 1000, got 1e400$/],
    ["/v1/search", "a radius past the double range", '{"text":"x","radius":1e400}', 400, "radius", /^radius must be an integer from 0 to 16, got 1e400$/],
    ["/v1/documents", "a time past 2^53", '{"text":"hello there","time":9007199254740993}', 400, "time", /^time must be an ISO-8601 date or epoch milliseconds \(a JSON number\) from 0 to 253402300799999 .*got 9007199254740993$/],
    ["/v1/documents", "epoch milliseconds as a string", { text: "hello there", time: "1796640000000" }, 400, "time", /^time must be an ISO-8601 date or epoch milliseconds, got "1796640000000" \(epoch milliseconds are sent as a JSON number, not a string\)$/],
    ["/v1/search", "a radius out of range", { text: "hello", radius: 99 }, 400, "radius", /radius/],
    ["/v1/search", "a min_similarity above 1", { text: "hello", min_similarity: 2 }, 400, "min_similarity", /min_similarity/],
    ["/v1/search", "a search for a missing id", { id: "never-indexed" }, 404, "id", /"never-indexed" does not exist/],
    ["/v1/documents/_bulk", "an empty bulk", [], 400, "body", /no documents/],
    ["/v1/documents/_bulk", "too many bulk items", Array.from({ length: 6 }, (_, i) => ({ text: `t${i}` })), 413, "body", /6 documents; the limit is 5/],
    ["/v1/documents/_bulk", "a bulk object without items", { text: "x" }, 400, "body", /bulk body must be/],
    ["/v1/fingerprint", "fingerprint without text", { txt: "x" }, 400, "txt", /not a known field/],
    ["/v1/compare", "compare with b missing", { a: "x" }, 400, "b", /^b is required$/],
    // JSON.parse would store 9007199254740992 (another order id) and null: refused where they are, as sent.
    ["/v1/documents", "an integer past 2^53 in fields", '{"text":"hello there","fields":{"order_id":9007199254740993}}', 400, "fields.order_id", /^fields\.order_id is 9007199254740993, .*send it as a string/],
    // JSON.parse keeps the last of a repeated key: written under the other id, another text fingerprinted (audit 18, F5).
    ["/v1/documents", "an id given twice", '{"id":"a18-dk","id":"a18-dk2","text":"hello world dup keys test"}', 400, "id", /^id appears twice in one object/],
    ["/v1/fingerprint", "a text given twice", '{"text":"hello world","text":"other"}', 400, "text", /appears twice/],
  ];

  it.each(cases)("%s: %s", async (path, _what, body, status, field, message) => {
    const res = await request(h.app)
      .post(path)
      .set("Content-Type", json)
      .send(typeof body === "string" ? body : JSON.stringify(body));
    expect(res.status).toBe(status);
    expectSchema(res.body, "Error");
    expect(res.body.error.field).toBe(field);
    expect(res.body.error.message).toMatch(message);
  });

  it.each([
    ["/v1/documents", json, Buffer.concat([Buffer.from('{"id":"bad'), Buffer.from([0xff]), Buffer.from('","text":"hello there"}')])],
    ["/v1/documents/_bulk", json, Buffer.concat([Buffer.from('[{"id":"bad'), Buffer.from([0xfe]), Buffer.from('","text":"hello there"}]')])],
    ["/v1/documents/_bulk", "application/x-ndjson", Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from(' au lait"}\n')])],
  ])("%s (%s) with bytes that are not UTF-8 is a 400 naming the body, and writes nothing", async (path, type, body) => {
    const res = await request(h.app).post(path).set("Content-Type", type).serialize((b: Buffer) => b as unknown as string).send(body as never);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field: "body", message: expect.stringContaining("not valid UTF-8") });
  });

  it("an NDJSON line with a number JSON cannot carry as sent is a per-item 400 naming where it is; the others are decided", async () => {
    const body = '{"text":"hello there","fields":{"n":12345678901234567890}}\n{"text":"hello there","fields":{"n":1e999}}\n';
    const res = await request(h.app).post("/v1/documents/_bulk").set("Content-Type", "application/x-ndjson").send(body);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[0].fields.n", message: expect.stringContaining("12345678901234567890") }) },
      { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[1].fields.n" }) },
    ]);
  });

  it("an NDJSON line with a key twice in one object is a per-item 400 naming it (audit 18, F5)", async () => {
    const body = '{"id":"dk-a","id":"dk-b","text":"hello there"}\n{"text":"hello there","fields":{"x":{"y":1,"y":2}}}\n';
    const res = await request(h.app).post("/v1/documents/_bulk").set("Content-Type", "application/x-ndjson").send(body);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[0].id", message: expect.stringContaining("appears twice") }) },
      { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[1].fields.x.y" }) },
    ]);
  });

  it("a bad policy is a 400 naming policy", async () => {
    const res = await request(h.app).post("/v1/documents?policy=drop").set("Content-Type", json).send({ text: "hello there" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field: "policy" });
    expect(res.body.error.message).toBe('policy must be one of mark, skip, reject, got "drop"');
  });

  it("nothing invalid was written", async () => {
    await h.engine.refresh(h.index);
    const all = await h.engine.search({ index: h.index, body: { size: 0, track_total_hits: true, query: { match_all: {} } } });
    expect(totalHits(all)).toBe(0);
  });
});

describe.each(engineTargets())("bulk items refused alone on $kind $version ($source)", (target) => {
  let h: ApiHarness;
  let holder: Server;
  let follower: ApiHarness;

  beforeAll(async () => {
    h = await startApi(target);
    // A follower whose writes go to h over HTTP, as a sidecar without the writer lease sends them.
    holder = h.app.listen(0, "127.0.0.1");
    await once(holder, "listening");
    const url = `http://127.0.0.1:${(holder.address() as AddressInfo).port}`;
    const forward = httpForwarder({ timeoutMs: 10_000 });
    follower = await startApi(target, { index: h.index });
    follower.service.router = { forward: (docs, policy, labels) => forward(url, docs, policy, labels), assertDeciding: () => undefined };
  });
  afterAll(async () => {
    await new Promise((r) => holder.close(r));
    await follower.engine.close();
    await h.close();
  });

  const ndjson = (app: ApiHarness["app"], body: string) => request(app).post("/v1/documents/_bulk").set("Content-Type", "application/x-ndjson").send(body);
  const invalidLines = ['{"text":"x","text":"y"}', '{"text":', "5", '{"text":"hello there"} trailing'];
  const perLineErrors = [
    { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[0].text", message: expect.stringMatching(/^items\[0\]\.text appears twice in one object/) }) },
    { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[1]", message: expect.stringMatching(/^line 2 is not valid JSON/) }) },
    { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[2]", message: "items[2] must be a JSON object" }) },
    { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[3]", message: expect.stringMatching(/^line 4 is not valid JSON/) }) },
  ];

  it.each([
    ["the lease holder", () => h],
    ["a follower", () => follower],
  ])("an NDJSON bulk whose every line is invalid gets each line's own error on %s, as after a valid line (audit 22a, F3: 'items must have at least 1 items')", async (_who, harness) => {
    const res = await ndjson(harness().app, invalidLines.join("\n") + "\n");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ errors: true });
    expect(res.body.items).toEqual(perLineErrors);
  });

  it("a JSON-array bulk item with a key twice fails alone, named items[1].text as on NDJSON; the others are indexed (audit 22a, F4: the whole bulk was refused, naming [1].text)", async () => {
    const body = '[{"id":"f4-ok","text":"fine doc one two three 123"},{"id":"f4-bad","text":"x","text":"y"},{"id":"f4-ok2","text":"a second fine document, four five six","fields":{"n":1}}]';
    const res = await request(follower.app).post("/v1/documents/_bulk").set("Content-Type", json).send(body);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { status: 201, result: expect.objectContaining({ id: "f4-ok", status: "original" }) },
      { status: 400, error: expect.objectContaining({ code: "INVALID_INPUT", field: "items[1].text", message: expect.stringMatching(/^items\[1\]\.text appears twice in one object/) }) },
      { status: 201, result: expect.objectContaining({ id: "f4-ok2", status: "original" }) },
    ]);
    // The same item after a valid line on NDJSON: the same answer for it.
    const nd = await ndjson(h.app, '{"id":"f4-nd","text":"fine doc seven eight nine 456"}\n{"text":"x","text":"y"}\n');
    expect(nd.body.items[1]).toEqual(res.body.items[1]);
  });

  it("in {\"items\": [...]}, a lossy number or a repeated key in one item's fields fails that item alone; one outside the items refuses the body", async () => {
    const body = '{"items":[{"id":"f4-i0","text":"hello there, a number past the range","fields":{"a b":[1,-1e400]}},{"id":"f4-i1","text":"one more fine document for the items form"},{"text":"z","fields":{"a":1,"\\u0061":2}}]}';
    const res = await request(h.app).post("/v1/documents/_bulk").set("Content-Type", json).send(body);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { status: 400, error: expect.objectContaining({ field: 'items[0].fields["a b"][1]', message: expect.stringMatching(/is -1e400, .*send it as a string/) }) },
      { status: 201, result: expect.objectContaining({ id: "f4-i1" }) },
      { status: 400, error: expect.objectContaining({ field: "items[2].fields.a", message: expect.stringContaining("appears twice") }) },
    ]);
    const whole = await request(h.app).post("/v1/documents/_bulk").set("Content-Type", json).send('{"items":[{"id":"f4-w","text":"never written"}],"items":[]}');
    expect(whole.status).toBe(400);
    expect(whole.body.error).toMatchObject({ code: "INVALID_INPUT", field: "items", message: expect.stringContaining("appears twice") });
    await h.engine.refresh(h.index);
    const stored = await h.engine.search({ index: h.index, body: { size: 20, query: { match_all: {} } } });
    const ids = (stored as { hits: { hits: { _id: string }[] } }).hits.hits.map((hit) => hit._id).sort();
    expect(ids).toEqual(["f4-i1", "f4-nd", "f4-ok", "f4-ok2"]);
  });
});

describe.each(engineTargets())("engine outage on $kind $version ($source)", (target) => {
  let proxy: TcpProxy;
  let h: ApiHarness;

  beforeAll(async () => {
    proxy = await startTcpProxy(target.url);
    h = await startApi(target, { url: proxy.url });
  });
  afterAll(async () => {
    proxy.restore();
    await h.close();
    await proxy.close();
  });

  it("answers 503 with Retry-After while the engine is down and loses nothing it acknowledged", async () => {
    const acknowledged: string[] = [];
    const send = async (i: number) => {
      const res = await request(h.app)
        .post("/v1/documents")
        .set("Content-Type", json)
        .send({ id: `out-${i}`, text: `Outage test document number ${i}: the ${["red", "green", "blue", "amber"][i % 4]} line timetable changes on day ${i}.` });
      if (res.status === 201) acknowledged.push(`out-${i}`);
      return res;
    };
    for (let i = 0; i < 10; i++) expect((await send(i)).status).toBe(201);

    proxy.cut();
    const during = await Promise.all(Array.from({ length: 10 }, (_, k) => send(10 + k)));
    for (const res of during) {
      expect(res.status).toBe(503);
      expect(res.headers["retry-after"]).toBe("5");
      expectSchema(res.body, "Error");
      expect(res.body.error.code).toBe("ENGINE_UNAVAILABLE");
    }
    const check = await request(h.app).post("/v1/check").set("Content-Type", json).send({ text: "anything at all during the outage" });
    expect(check.status).toBe(503);

    proxy.restore();
    for (let i = 20; i < 30; i++) expect((await send(i)).status).toBe(201);

    await h.engine.refresh(h.index);
    const stored = await h.engine.search<unknown>({ index: h.index, body: { size: 100, _source: false, query: { match_all: {} } } });
    const ids = stored.hits.hits.map((hit) => hit._id).sort();
    expect(acknowledged).toHaveLength(20);
    for (const id of acknowledged) expect(ids).toContain(id);
    expect(ids.filter((id) => !acknowledged.includes(id))).toEqual([]);
  });
});
