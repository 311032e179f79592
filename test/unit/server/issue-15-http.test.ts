/**
 * Issue 15 regressions at the HTTP edge (no engine): access control, CORS,
 * Content-Type and Content-Encoding, decode errors, 405, over-long ids, limits.
 */
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { gzipSync } from "node:zlib";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { parseApiKeys } from "../../../src/config/api-keys.js";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { OPEN_PATHS, createApp, type AppDeps } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { openApiDocument } from "../../../src/server/openapi.js";
import { Readiness } from "../../../src/server/readiness.js";
import { expectSchema } from "../../helpers/openapi.js";
import { rawHttp } from "../../helpers/raw-http.js";

/** The app listening on a free port; `close` ends its connections and stops it. */
async function serve(handler: http.RequestListener): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer(handler).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { port: (server.address() as { port: number }).port, close };
}

/** A POST /v1/fingerprint whose headers are sent, then `written` of its body (if any), and nothing more. */
function pending(port: number, headers: Record<string, string>, written?: string): http.ClientRequest {
  const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/v1/fingerprint", headers: { "Content-Type": "application/json", ...headers } });
  req.on("error", () => undefined);
  if (written === undefined) req.flushHeaders();
  else req.write(written);
  return req;
}

const fingerprinter = createFingerprinter();
const sha = (key: string) => createHash("sha256").update(key).digest("hex");
const KEYS = parseApiKeys(`reader:read:${sha("r-key-0123456789")}, writer:write:${sha("w-key-0123456789")}, root:admin:${sha("a-key-0123456789")}`, "test");

function app(extra: Partial<AppDeps> = {}) {
  const metrics = createMetrics({ defaultMetrics: false });
  const readiness = new Readiness();
  const a = createApp({ logger: createLogger("silent"), metrics, readiness, fingerprinter: () => fingerprinter, service: () => undefined, ...extra });
  return { app: a, metrics };
}

describe("access control (issue 15)", () => {
  const { app: secured, metrics } = app({ apiKeys: KEYS });

  it("refuses /v1 without a key or with a wrong one (401, WWW-Authenticate), and counts it", async () => {
    const none = await request(secured).post("/v1/fingerprint").send({ text: "hello world" });
    expect(none.status).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/ApiKey/);
    expectSchema(none.body, "Error");
    const wrong = await request(secured).post("/v1/fingerprint").set("Authorization", "Bearer nope-nope-nope").send({ text: "hello world" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe("the API key is not valid");
    const basic = await request(secured).post("/v1/fingerprint").set("Authorization", "Basic dTpw").send({ text: "hello world" });
    expect(basic.status).toBe(401);
    expect(await metrics.registry.getSingleMetricAsString("neardup_auth_failures_total")).toMatch(/reason="invalid"\} 1/);
  });

  it("accepts ApiKey and Bearer, and enforces scopes (403 for a read key on a write route)", async () => {
    expect((await request(secured).post("/v1/fingerprint").set("Authorization", "ApiKey r-key-0123456789").send({ text: "hello world" })).status).toBe(200);
    expect((await request(secured).post("/v1/compare").set("Authorization", "Bearer a-key-0123456789").send({ a: "hello", b: "hallo" })).status).toBe(200);
    const forbidden = await request(secured).post("/v1/documents").set("Authorization", "ApiKey r-key-0123456789").send({ text: "hello world" });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toBe("the API key reader lacks the write scope this endpoint needs");
    const writerReads = await request(secured).post("/v1/check").set("Authorization", "ApiKey w-key-0123456789").send({ text: "hello world" });
    expect(writerReads.status).toBe(403);
    // A write key passes the scope check; the engine is not ready, so 503.
    expect((await request(secured).post("/v1/documents").set("Authorization", "ApiKey w-key-0123456789").send({ text: "hello world" })).status).toBe(503);
  });

  it.each(["/v1/DOCUMENTS", "/v1/Documents/", "/v1/documents/_BULK", "/v1/Internal/Documents"])("a read key cannot write by changing the case of the path: %s", async (path) => {
    // Before: the routers matched case-insensitively and the scope check did not, so these passed as reads (here 503: no engine).
    const res = await request(secured).post(path).set("Authorization", "ApiKey r-key-0123456789").send(path.includes("_BULK") ? [{ text: "hello world" }] : { text: "hello world" });
    expect(res.status).toBe(403);
    // With a write key the path is not a route at all: paths are case-sensitive.
    expect((await request(secured).post(path).set("Authorization", "ApiKey w-key-0123456789").send({ text: "hello world" })).status).toBe(404);
  });

  it("/openapi.json asks for a key only when keys are configured (audit 18, F6: fuzzers took every keyless answer for ignored authentication)", async () => {
    const keyless = (await request(app().app).get("/openapi.json")).body as { security: unknown[] };
    expect(keyless.security).toEqual([]);
    const secured = (await request(app({ apiKeys: KEYS }).app).get("/openapi.json")).body as { security: unknown[] };
    expect(secured.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
  });
  it("keeps /livez, /readyz, /metrics and /openapi.json open", async () => {
    expect((await request(secured).get("/livez")).status).toBe(200);
    expect((await request(secured).get("/readyz")).status).toBe(503);
    expect((await request(secured).get("/metrics")).status).toBe(200);
    expect((await request(secured).get("/openapi.json")).status).toBe(200);
  });
});

describe("CORS and Content-Type: no cross-site simple POST (issue 15)", () => {
  const { app: plain } = app();
  it("sends no CORS header by default", async () => {
    const res = await request(plain).post("/v1/fingerprint").set("Origin", "https://evil.example").send({ text: "hello world" });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await request(plain).options("/v1/fingerprint").set("Origin", "https://evil.example").set("Access-Control-Request-Method", "POST");
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
  it("allows configured origins only", async () => {
    const { app: withCors } = app({ corsOrigins: ["https://ui.example"] });
    const ok = await request(withCors).options("/v1/fingerprint").set("Origin", "https://ui.example").set("Access-Control-Request-Method", "POST");
    expect(ok.status).toBe(204);
    expect(ok.headers["access-control-allow-origin"]).toBe("https://ui.example");
    const other = await request(withCors).post("/v1/fingerprint").set("Origin", "https://evil.example").send({ text: "hello world" });
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
  });
  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])("a write sent as %s is 415 before anything runs", async (type) => {
    const res = await request(plain).post("/v1/fingerprint").set("Content-Type", type).send('{"text":"hello world"}');
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", field: "Content-Type" });
  });
  it("bulk accepts NDJSON but not text/plain", async () => {
    const res = await request(plain).post("/v1/documents/_bulk").set("Content-Type", "text/plain").send('{"text":"a"}\n');
    expect(res.status).toBe(415);
    const nd = await request(plain).post("/v1/documents/_bulk").set("Content-Type", "application/x-ndjson").send('{"text":"a"}\n');
    expect(nd.status).toBe(503);
  });
  it.each([
    ["/v1/documents/_bulk", "application/x-ndjson; charset=latin1"],
    ["/v1/documents/_bulk", 'application/x-ndjson; charset="ISO-8859-1"'],
    ["/v1/fingerprint", "application/json; charset=utf-16"],
  ])("%s sent as %s is 415 naming the charset (NDJSON was decoded as latin1 and stored garbled)", async (path, type) => {
    const res = await request(plain).post(path).set("Content-Type", type).send(Buffer.from('{"text":"caf\u00e9"}\n', "latin1"));
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", field: "Content-Type" });
    expect(res.body.error.message).toMatch(/charset must be utf-8/);
  });
  it.each([
    ["/v1/fingerprint", Buffer.concat([Buffer.from('{"text":"bad'), Buffer.from([0xff]), Buffer.from('"}')])],
    ["/v1/compare", Buffer.concat([Buffer.from('{"a":"caf'), Buffer.from([0xe9]), Buffer.from('","b":"cafe"}')])],
  ])("%s with bytes that are not UTF-8 is a 400 naming the body (they were replaced with U+FFFD, and ids bad\\xff and bad\\xfe became one document)", async (path, body) => {
    const res = await request(plain).post(path).set("Content-Type", "application/json").serialize((b: Buffer) => b as unknown as string).send(body as never);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field: "body", message: expect.stringContaining("not valid UTF-8") });
  });
  it("utf-8 in any spelling is accepted", async () => {
    for (const type of ["application/json; charset=UTF-8", 'application/json;charset="utf-8"']) {
      expect((await request(plain).post("/v1/fingerprint").set("Content-Type", type).send('{"text":"hello world"}')).status, type).toBe(200);
    }
  });
});

describe("statuses of malformed requests (issue 15)", () => {
  const { app: plain } = app();
  it("a bad percent-escape in a path is 400, not 500", async () => {
    const res = await request(plain).get("/v1/documents/%FF/duplicates");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field: "id" });
  });
  it("Content-Encoding gzip or br on a plain body is a 400 naming Content-Encoding; an unknown encoding is 415", async () => {
    for (const enc of ["gzip", "br", "deflate"]) {
      const res = await request(plain).post("/v1/fingerprint").set("Content-Type", "application/json").set("Content-Encoding", enc).send('{"text":"hello world"}');
      expect(res.status, enc).toBe(400);
      expect(res.body.error.field).toBe("Content-Encoding");
    }
    const zstd = await request(plain).post("/v1/fingerprint").set("Content-Type", "application/json").set("Content-Encoding", "zstd").send('{"text":"hello world"}');
    expect(zstd.status).toBe(415);
  });
  it("a real gzip body is accepted", async () => {
    const { port, close } = await serve(plain);
    const res = await fetch(`http://127.0.0.1:${port}/v1/fingerprint`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" },
      body: gzipSync('{"text":"hello world"}'),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { simhash: string }).simhash).toMatch(/^[0-9a-f]{16}$/);
    await close();
  });
  it("a wrong method on a known path is 405 with Allow", async () => {
    const res = await request(plain).get("/v1/check");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expectSchema(res.body, "Error");
    const del = await request(plain).delete("/v1/documents/abc/duplicates");
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe("GET, HEAD");
    expect((await request(plain).post("/livez")).status).toBe(405);
    expect((await request(plain).get("/v1/nothing-here")).status).toBe(404);
  });
  it("a query parameter on a route that takes none is a 400 naming it (it was ignored, as a typo would be)", async () => {
    for (const path of ["/v1/fingerprint?top=3", "/v1/compare?x=1"]) {
      const res = await request(plain).post(path).set("Content-Type", "application/json").send('{"text":"hello world","a":"x","b":"y"}');
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatchObject({ code: "INVALID_INPUT", field: path.split("?")[1]!.split("=")[0], message: expect.stringContaining("is not a known parameter") });
    }
  });
  it("OPTIONS on a known path is 204 with Allow naming OPTIONS too (Express answered 200 text/plain), and 404 elsewhere", async () => {
    for (const [path, allow] of [["/v1/check", "POST, OPTIONS"], ["/v1/documents/abc/duplicates", "GET, HEAD, OPTIONS"], ["/livez", "GET, HEAD, OPTIONS"]] as const) {
      const res = await request(plain).options(path);
      expect(res.status, path).toBe(204);
      expect(res.headers.allow, path).toBe(allow);
      expect(res.text, path).toBe("");
    }
    expect((await request(plain).options("/v1/nothing-here")).status).toBe(404);
  });
  it("an over-long id on a read path is 400 before the engine is asked", async () => {
    const res = await request(plain).get(`/v1/documents/${"x".repeat(513)}/duplicates`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ field: "id", message: "id must be at most 512 bytes" });
    const search = await request(plain).post("/v1/search").send({ id: "é".repeat(300) });
    expect(search.status).toBe(400);
    expect(search.body.error.field).toBe("id");
  });
  it("blank text is refused as the OpenAPI document says", async () => {
    const res = await request(plain).post("/v1/compare").send({ a: " ", b: "x" });
    expect(res.status).toBe(400);
  });
});

describe("limits (issue 15)", () => {
  it("the per-key rate limit answers 429 with Retry-After, per key", async () => {
    const { app: limited, metrics } = app({ apiKeys: KEYS, limits: { rateLimitRps: 0.01, rateLimitBurst: 2 } });
    const send = (key: string) => request(limited).post("/v1/fingerprint").set("Authorization", `ApiKey ${key}`).send({ text: "hello world" });
    expect((await send("r-key-0123456789")).status).toBe(200);
    expect((await send("r-key-0123456789")).status).toBe(200);
    const third = await send("r-key-0123456789");
    expect(third.status).toBe(429);
    expect(Number(third.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expectSchema(third.body, "Error");
    expect((await send("a-key-0123456789")).status).toBe(200);
    expect(await metrics.registry.getSingleMetricAsString("neardup_limit_hits_total")).toMatch(/limit="rate"\} 1/);
  });
  it("the concurrency limit counts requests being worked on (429 with Retry-After), not bodies still arriving (audit 18, F1: stalled bodies held every slot)", async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const analyzer = { report: async () => (await gate, { stub: true }) } as unknown as NonNullable<AppDeps["analyzer"]>;
    const { app: one, metrics } = app({ analyzer, limits: { maxConcurrent: 1 } });
    const { port, close } = await serve(one);
    const base = `http://127.0.0.1:${port}`;
    // Requests whose bodies never finish, announced or chunked: they hold no slot.
    const stalled = [pending(port, { "Content-Length": "1000" }, '{"text": "'), pending(port, { "Transfer-Encoding": "chunked" }, "a\r\n{\"text\": \"\r\n")];
    await new Promise((r) => setTimeout(r, 100));
    const working = request(base).post("/v1/fingerprint").send({ text: "hello world" }).then((r) => r);
    await new Promise((r) => setTimeout(r, 200));
    // One request is being worked on (its body arrived, the analysis waits): it holds the only slot.
    const refused = await request(base).post("/v1/fingerprint").send({ text: "hello again" });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.body.error.message).toMatch(/NEARDUP_MAX_CONCURRENT/);
    const bodyless = await request(base).get("/v1/stats");
    expect(bodyless.status).toBe(429);
    open();
    expect((await working).status).toBe(200);
    expect((await request(base).post("/v1/fingerprint").send({ text: "and again" })).status).toBe(200);
    expect(await metrics.registry.getSingleMetricAsString("neardup_limit_hits_total")).toMatch(/limit="concurrency"\} 2/);
    for (const r of stalled) r.destroy();
    await close();
  });
  it("a body that goes NEARDUP_BODY_TIMEOUT_MS without a byte is answered 408 naming it, and its connection closed (audit 18, F1: it was held 300 s)", async () => {
    const { app: quick, metrics } = app({ limits: { bodyIdleMs: 300 } });
    const { port, close } = await serve(quick);
    const started = Date.now();
    const text = await rawHttp(`http://127.0.0.1:${port}`, 'POST /v1/fingerprint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text": "', { close: "none" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.toLowerCase()).toContain("connection: close");
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as { error: { code: string; message: string; field: string } };
    expect(body.error).toMatchObject({ code: "REQUEST_TIMEOUT", field: "body", message: expect.stringContaining("NEARDUP_BODY_TIMEOUT_MS") });
    expect(await metrics.registry.getSingleMetricAsString("neardup_limit_hits_total")).toMatch(/limit="body_idle"\} 1/);
    await close();
  });
  it("a body that keeps coming is not cut, however long it takes in all", async () => {
    // Gaps of 100 ms against an idle limit of 1 s (a loaded machine may stall a gap by several hundred ms),
    // 12 of them: longer in all than the limit.
    const { app: patient } = app({ limits: { bodyIdleMs: 1_000 } });
    const { port, close } = await serve(patient);
    const pieces = Array.from({ length: 12 }, (_, i) => `w${i} `);
    const text = pieces.join("");
    const length = Buffer.byteLength(`{"text": "${text}"}`);
    const slow = pending(port, { "Content-Length": String(length) }, '{"text": "');
    const answer = new Promise<number>((resolve) => slow.on("response", (r) => resolve(r.statusCode ?? 0)));
    const started = Date.now();
    for (const piece of pieces) {
      await new Promise((r) => setTimeout(r, 100));
      slow.write(piece);
    }
    slow.end('"}');
    expect(await answer).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(1_000);
    await close();
  });
  it("the in-flight body budget counts bytes as they arrive: idle connections that announced large bodies hold nothing (they blocked /v1 for 300 s)", async () => {
    const { app: small } = app({ limits: { maxInflightBodyBytes: 1000 } });
    const { port, close } = await serve(small);
    const idle = [900, 5_000_000, undefined].map((length) => pending(port, length === undefined ? { "Transfer-Encoding": "chunked" } : { "Content-Length": String(length) }));
    await new Promise((r) => setTimeout(r, 100));
    expect((await request(`http://127.0.0.1:${port}`).post("/v1/fingerprint").send({ text: "x".repeat(200) })).status).toBe(200);
    for (const r of idle) r.destroy();
    await close();
  });
  it("the in-flight body budget does not count bodies read off after the answer (a 415's body leaked into it for good)", async () => {
    const { app: small } = app({ limits: { maxInflightBodyBytes: 1000 } });
    const { port, close } = await serve(small);
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 3; i++) {
      const wrongType = await request(base).post("/v1/fingerprint").set("Content-Type", "text/plain").send("z".repeat(5_000));
      expect(wrongType.status).toBe(415);
    }
    // Alone, a body over the budget still goes in, and so does a small one.
    expect((await request(base).post("/v1/fingerprint").send({ text: "x".repeat(5_000) })).status).toBe(200);
    expect((await request(base).post("/v1/fingerprint").send({ text: "hi there" })).status).toBe(200);
    await close();
  });
  it("the in-flight body budget answers 429 to a body whose bytes would exceed it while another holds some", async () => {
    const { app: small, metrics } = app({ limits: { maxInflightBodyBytes: 1000 } });
    const { port, close } = await serve(small);
    const hold = pending(port, { "Content-Length": "900" }, `{"text": "${"y".repeat(790)}`);
    await new Promise((r) => setTimeout(r, 100));
    const res = await request(`http://127.0.0.1:${port}`).post("/v1/fingerprint").send({ text: "x".repeat(200) });
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(/NEARDUP_MAX_INFLIGHT_BODY/);
    // A gzip body the same (its bytes are counted as sent): a 429 too, not a decoding 400 the client would not retry.
    const zipped = gzipSync(JSON.stringify({ text: randomBytes(300).toString("hex") }));
    expect(zipped.length).toBeGreaterThan(250);
    const gz = await request(`http://127.0.0.1:${port}`).post("/v1/fingerprint").set("Content-Type", "application/json").set("Content-Encoding", "gzip").send(zipped);
    expect(gz.status).toBe(429);
    expect((await request(`http://127.0.0.1:${port}`).post("/v1/fingerprint").send({ text: "hi there" })).status).toBe(200);
    expect(await metrics.registry.getSingleMetricAsString("neardup_limit_hits_total")).toMatch(/limit="inflight_body"\} 2/);
    hold.destroy();
    await close();
  });
  it("exposes every limit as a metric", async () => {
    const { metrics } = app({ limits: { maxConcurrent: 7 } });
    const text = await metrics.registry.getSingleMetricAsString("neardup_limit");
    expect(text).toMatch(/limit="max_concurrent"\} 7/);
    expect(text).toMatch(/limit="compare_edit_max_chars"\} 4000/);
  });
});

describe("the OpenAPI document is the contract (issue 15)", () => {
  const doc = openApiDocument as unknown as {
    paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[]; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
  };
  const engineFree = ["/v1/fingerprint", "/v1/compare"];
  it("lists every status each /v1 operation can answer, 502 and 503 where the engine is called", () => {
    for (const [path, item] of Object.entries(doc.paths).filter(([p]) => p.startsWith("/v1/"))) {
      for (const [method, op] of Object.entries(item)) {
        const statuses = Object.keys(op.responses);
        for (const s of ["400", "401", "403", "405", "413", "415", "429"]) expect(statuses, `${method} ${path}`).toContain(s);
        if (!engineFree.includes(path)) for (const s of ["502", "503"]) expect(statuses, `${method} ${path}`).toContain(s);
      }
    }
  });
  it("refuses blank texts and empty bulks in the schema, as the validation does", () => {
    const compare = doc.paths["/v1/compare"]!.post!.requestBody!.content["application/json"]!.schema as { properties: Record<string, { minLength: number; pattern: string }> };
    expect(compare.properties.a!.minLength).toBe(1);
    expect(new RegExp(compare.properties.a!.pattern).test(" \t\u3000")).toBe(false);
    const bulk = doc.paths["/v1/documents/_bulk"]!.post!.requestBody!.content["application/json"]!.schema as { oneOf: { minItems?: number; properties?: { items: { minItems: number } } }[] };
    expect(bulk.oneOf[0]!.minItems).toBe(1);
    expect(bulk.oneOf[1]!.properties!.items.minItems).toBe(1);
  });
  it("marks the probes, metrics and the document itself as open", () => {
    for (const path of OPEN_PATHS) expect(doc.paths[path]!.get!.security, path).toEqual([]);
  });
});

describe("rate limit without keys (issue 15)", () => {
  it("does not throttle a keyless sidecar's clients, who all share 127.0.0.1", async () => {
    const { app: open } = app({ limits: { rateLimitRps: 0.01, rateLimitBurst: 1 } });
    for (let i = 0; i < 3; i++) expect((await request(open).post("/v1/fingerprint").send({ text: "hello world" })).status).toBe(200);
  });
});
