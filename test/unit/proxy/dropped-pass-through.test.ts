/**
 * Audit 22b, F10: a pass-through request the engine drops (it takes the connection and closes it without an
 * answer, as both engines do for `Content-Encoding: gzip` on bytes that are not gzip) was answered
 * `503 neardup_engine_unavailable_exception` "the engine ... is unreachable (ECONNRESET)": an outage that was not
 * happening, which clients' transports retry. It is a 502 saying the engine closed the connection without
 * answering; an engine that refuses the connection is still a 503.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProxy } from "../../../src/proxy/index.js";
import { startProxyOver } from "../../helpers/proxy.js";

describe("a pass-through request the engine drops (audit 22b, F10)", () => {
  let engine: http.Server;
  let proxy: RunningProxy;
  beforeAll(async () => {
    // Reads the request, then closes the connection without a byte of answer.
    engine = http.createServer((req) => {
      req.resume();
      req.on("end", () => req.socket.destroy());
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    proxy = await startProxyOver(engine);
  });
  afterAll(async () => {
    await proxy?.close();
    await new Promise((resolve) => engine.close(resolve));
  });

  it("is a 502 saying the engine closed the connection without answering, not a 503 naming an outage", async () => {
    const res = await fetch(`${proxy.url}/_search`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": "gzip" }, body: '{"size":0}' });
    expect(res.status).toBe(502);
    expect(res.headers.get("retry-after")).toBeNull();
    const body = (await res.json()) as { status: number; error: { type: string; reason: string } };
    expect(body.status).toBe(502);
    expect(body.error.type).toBe("neardup_engine_closed_connection_exception");
    expect(body.error.reason).toMatch(/closed the connection without answering this request \(ECONNRESET\)/);
    expect(body.error.reason).not.toMatch(/unreachable/);
  });

  it("an engine that refuses the connection is still a 503 unavailable", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const gone = await startProxyOver(closed);
    await new Promise((resolve) => closed.close(resolve));
    try {
      const res = await fetch(`${gone.url}/_search`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"size":0}' });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { type: string; reason: string } };
      expect(body.error.type).toBe("neardup_engine_unavailable_exception");
      expect(body.error.reason).toMatch(/unreachable \(ECONNREFUSED\)/);
    } finally {
      await gone.close();
    }
  });
});
