/**
 * Audit 23, F6: warn-level "request failed" lines named no method, route, status or request id, and the proxy's
 * "engine unreachable" no path or index. They do now, with the route as a template (no ids) and no text.
 */
import http from "node:http";
import { Writable } from "node:stream";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { startProxyOver } from "../../helpers/proxy.js";

function sink() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write: (chunk, _enc, cb) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), cb()) });
  return { lines, logger: createLogger("info", stream) };
}

describe("audit 23 F6: request context in the failure log lines", () => {
  // No engine yet: every engine endpoint answers 503 ENGINE_UNAVAILABLE, logged at warn.
  const app = (logger: ReturnType<typeof createLogger>) => createApp({ logger, metrics: createMetrics({ defaultMetrics: false }), readiness: new Readiness(), service: () => undefined });

  it("names method, route template, status and the request id, which the answer echoes as X-Request-Id; no text", async () => {
    const { lines, logger } = sink();
    const res = await request(app(logger)).post("/v1/check").send({ text: "a private sentence about nothing" });
    expect(res.status).toBe(503);
    const id = res.headers["x-request-id"];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const line = lines.find((l) => l.msg === "request failed")!;
    expect(line).toMatchObject({ level: 40, code: "ENGINE_UNAVAILABLE", method: "POST", route: "/v1/check", status: 503, requestId: id });
    expect(JSON.stringify(lines)).not.toContain("private sentence");
  });

  it("a path with an id is logged as its template; a client's plain X-Request-Id is kept, one that is not a token replaced", async () => {
    const { lines, logger } = sink();
    const served = app(logger);
    const res = await request(served).get("/v1/documents/customer-4711/duplicates").set("X-Request-Id", "trace-abc.123");
    expect(res.status).toBe(503);
    expect(res.headers["x-request-id"]).toBe("trace-abc.123");
    expect(lines.find((l) => l.msg === "request failed")).toMatchObject({ method: "GET", route: "/v1/documents/{id}/duplicates", status: 503, requestId: "trace-abc.123" });
    expect(JSON.stringify(lines)).not.toContain("customer-4711");
    const forged = await request(served).post("/v1/check").set("X-Request-Id", 'x" injected').send({ text: "t" });
    expect(forged.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("the proxy's engine unreachable line names method, index and path (no id) and the client's X-Opaque-Id", async () => {
    const { lines, logger } = sink();
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const proxy = await startProxyOver(closed, logger);
    await new Promise((resolve) => closed.close(resolve));
    try {
      const res = await fetch(`${proxy.url}/logs-2026/_doc/secret-id-9?refresh=true`, { method: "PUT", headers: { "content-type": "application/json", "x-opaque-id": "job-7" }, body: '{"message":"private words"}' });
      expect(res.status).toBe(503);
      const line = lines.find((l) => l.msg === "proxy: engine unreachable");
      expect(line).toMatchObject({ level: 40, method: "PUT", index: "logs-2026", path: "/{index}/_doc", status: 503, opaqueId: "job-7" });
      expect(JSON.stringify(lines)).not.toMatch(/secret-id-9|private words/);
    } finally {
      await proxy.close();
    }
  });
});
