import { Writable } from "node:stream";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";

function setup() {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
  const readiness = new Readiness();
  const app = createApp({ logger: createLogger("info", sink), metrics: createMetrics({ defaultMetrics: false }), readiness, bodyLimit: "1kb" });
  return { app, readiness, lines };
}

describe("health endpoints", () => {
  it("livez is 200 at once; readyz is 503 until the engine is ready, then 200", async () => {
    const { app, readiness } = setup();
    expect((await request(app).get("/livez")).status).toBe(200);
    const before = await request(app).get("/readyz");
    expect(before.status).toBe(503);
    expect(before.body).toEqual({ status: "not ready", reason: "starting" });
    readiness.markReady("opensearch 2.19.6");
    const after = await request(app).get("/readyz");
    expect(after.status).toBe(200);
    expect(after.body.reason).toBe("opensearch 2.19.6");
  });

  it("serves Prometheus metrics counting requests", async () => {
    const { app } = setup();
    await request(app).get("/livez");
    const res = await request(app).get("/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/neardup_http_requests_total\{method="GET",route="\/livez",status="200"\} 1/);
  });
});

describe("error answers", () => {
  it("an unknown route is a 404 naming the path", async () => {
    const res = await request(setup().app).get("/nope");
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: "NOT_FOUND", message: "no route GET /nope", field: "path" });
  });
  it("invalid JSON is a 400 naming the body", async () => {
    const res = await request(setup().app).post("/v1/anything").set("Content-Type", "application/json").send('{"text": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_INPUT");
    expect(res.body.error.field).toBe("body");
    expect(res.body.error.message).toMatch(/^request body is not valid JSON/);
  });
  it.each(["null", "1", '"x"', "true"])("a body of JSON that is no object or array (%s) is a 400 saying so, not 'not valid JSON'", async (body) => {
    const res = await request(setup().app).post("/v1/anything").set("Content-Type", "application/json").send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field: "body" });
    expect(res.body.error.message).toBe(`request body must be a JSON object or array, got ${body}`);
  });
  it("an oversized body is a 413 naming the limit", async () => {
    const res = await request(setup().app).post("/v1/anything").set("Content-Type", "application/json").send(JSON.stringify({ text: "x".repeat(5000) }));
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: "TOO_LARGE", field: "body" });
    expect(res.body.error.message).toContain("1024 bytes");
  });
});

describe("logger", () => {
  it("redacts passwords and API keys wherever they appear", () => {
    const { lines } = setup();
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const logger = createLogger("info", sink);
    logger.info({ engine: { url: "http://x", password: "pw-1", apiKey: "key-1" }, password: "pw-2" }, "connecting");
    const out = lines.join("");
    expect(out).toContain("connecting");
    expect(out).not.toContain("pw-1");
    expect(out).not.toContain("pw-2");
    expect(out).not.toContain("key-1");
  });
});
