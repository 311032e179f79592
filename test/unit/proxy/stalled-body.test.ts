/**
 * A `_bulk` sender that stalls mid-body (audit 18, F2): it held its bytes of the proxy's in-flight budget until
 * Node's 300 s request timeout, and every other client's bulk waited behind it and got 429. A body that goes
 * NEARDUP_BODY_TIMEOUT_MS without a byte while the proxy reads it is answered 408 in the engine's shape, its
 * connection closed and its bytes given back; a body paused by the proxy itself (waiting for the budget) is not.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProxy } from "../../../src/proxy/index.js";
import { rawHttp } from "../../helpers/raw-http.js";
import { startProxyOver } from "../../helpers/proxy.js";

// Sent as text/plain: the stand-in proxy has no engine client, and a body of another content type is read the
// same way (charged to the budget as it arrives) and then forwarded as sent, to the stand-in engine below.
const LINE = '{"index":{"_index":"other","_id":"a"}}\n{"message":"hello"}\n';

describe("the _bulk proxy and a body that stalls", () => {
  let engine: http.Server;
  let proxy: RunningProxy;
  const seen: number[] = [];
  beforeAll(async () => {
    engine = http.createServer((req, res) => {
      let n = 0;
      req.on("data", (c: Buffer) => (n += c.length));
      req.on("end", () => {
        seen.push(n);
        res.writeHead(200, { "content-type": "application/json" }).end('{"took":1,"errors":false,"items":[]}');
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    proxy = await startProxyOver(engine, undefined, { bodyIdleMs: 400, maxInflightBytes: 64 * 1024, maxInflightWaitMs: 5_000 });
  });
  afterAll(async () => {
    await proxy?.close();
    engine?.close();
  });

  it("answers 408 to a sender that stopped sending, closes its connection and gives its bytes back: the next client's bulk goes through", async () => {
    // 100 KB announced, 70 KB sent (more than the 64 KB budget), then nothing.
    const sent = LINE.repeat(Math.ceil((70 * 1024) / LINE.length));
    const head = `POST /_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${100 * 1024}\r\n\r\n`;
    const stalledAnswer = rawHttp(proxy.url, head + sent, { close: "none" });
    await new Promise((r) => setTimeout(r, 100));
    // Another client's small bulk: it waits for the budget, then goes through once the stalled one is cut.
    const started = Date.now();
    const other = await fetch(`${proxy.url}/_bulk`, { method: "POST", headers: { "content-type": "text/plain" }, body: LINE });
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4_000);
    const text = await stalledAnswer;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.toLowerCase()).toContain("connection: close");
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as { status: number; error: { type: string; reason: string } };
    expect(body.status).toBe(408);
    expect(body.error.reason).toContain("NEARDUP_BODY_TIMEOUT_MS");
    expect(seen).toEqual([LINE.length]); // nothing of the stalled body reached the engine
  });

  it("does not cut a body that keeps coming, slowly", async () => {
    seen.length = 0;
    // Gaps of 100 ms against an idle limit of 1.5 s (a loaded machine may stall a gap by several hundred ms),
    // 20 of them: longer in all than the limit.
    const patient = await startProxyOver(engine, undefined, { bodyIdleMs: 1_500, maxInflightBytes: 64 * 1024, maxInflightWaitMs: 5_000 });
    const started = Date.now();
    const answer = new Promise<number>((resolve, reject) => {
      const req = http.request(`${patient.url}/_bulk`, { method: "POST", headers: { "content-type": "text/plain", "content-length": String(LINE.length) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      const size = Math.ceil(LINE.length / 21);
      const pieces = Array.from({ length: Math.ceil(LINE.length / size) }, (_, k) => LINE.slice(k * size, (k + 1) * size));
      const next = (k: number) => {
        if (k === pieces.length) return void req.end();
        req.write(pieces[k]);
        setTimeout(() => next(k + 1), 100);
      };
      next(0);
    });
    try {
      expect(await answer).toBe(200);
      expect(Date.now() - started).toBeGreaterThan(1_500);
      expect(seen).toEqual([LINE.length]);
    } finally {
      await patient.close();
    }
  });
});
