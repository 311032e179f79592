/**
 * Audit 23, F8: every hostile connection (a body cut short, a malformed request) wrote one info line, with no
 * limit: 2,500 slowloris connections wrote 2,520 lines. At most one line of a kind per 10 s now, the next one
 * saying how many were left out; in the proxy and in the API.
 */
import { createServer, type Server } from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildConfig } from "../../../src/config/config.js";
import type { RunningProxy } from "../../../src/proxy/index.js";
import { LogThrottle } from "../../../src/server/log-throttle.js";
import { createLogger } from "../../../src/server/logger.js";
import { startService, type RunningService } from "../../../src/server/service.js";
import { startProxyOver } from "../../helpers/proxy.js";
import { rawHttp } from "../../helpers/raw-http.js";

describe("LogThrottle", () => {
  it("lets one line of a kind through per interval, counts the others, and says how many on the next line", () => {
    let now = 1_000;
    const throttle = new LogThrottle(10_000, () => now);
    expect(throttle.take("short_body")).toEqual({});
    for (let k = 0; k < 5; k++) expect(throttle.take("short_body")).toBeUndefined();
    expect(throttle.take("malformed")).toEqual({}); // each kind its own
    now += 9_999;
    expect(throttle.take("short_body")).toBeUndefined();
    now += 1;
    expect(throttle.take("short_body")).toEqual({ suppressed: 6, suppressedMs: 10_000 });
    now += 60_000;
    expect(throttle.take("short_body")).toEqual({}); // nothing left out since
  });

  it("reports the lines left out when the interval ends with none written after them, once, and starts a new interval", () => {
    vi.useFakeTimers();
    try {
      let now = 1_000;
      const reported: [string, unknown][] = [];
      const throttle = new LogThrottle(10_000, () => now, (kind, left) => reported.push([kind, left]));
      expect(throttle.take("short_body")).toEqual({});
      now += 2_000;
      for (let k = 0; k < 3; k++) expect(throttle.take("short_body")).toBeUndefined();
      now += 7_999;
      vi.advanceTimersByTime(7_999);
      expect(reported).toEqual([]);
      now += 1;
      vi.advanceTimersByTime(1);
      expect(reported).toEqual([["short_body", { suppressed: 3, suppressedMs: 10_000 }]]);
      vi.advanceTimersByTime(60_000);
      expect(reported).toHaveLength(1); // reported once
      now += 1_000;
      expect(throttle.take("short_body")).toBeUndefined(); // the report was the interval's line
      now += 9_000;
      expect(throttle.take("short_body")).toEqual({ suppressed: 1, suppressedMs: 10_000 }); // a line came first: it says so, no report
      vi.advanceTimersByTime(60_000);
      expect(reported).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** `count` requests cut short (a Content-Length of 1000, 10 bytes sent) and `count` malformed ones, in parallel. */
async function hostile(url: string, path: string, count: number): Promise<void> {
  const short = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"a`;
  await Promise.all(Array.from({ length: count }, () => [rawHttp(url, short), rawHttp(url, "GARBAGE\x01 / HTTP/1.1\r\n\r\n")]).flat());
}

function sink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const text: string[] = [];
  const stream = new Writable({ write: (chunk, _enc, cb) => (text.push(String(chunk)), cb()) });
  return { stream, lines: () => text.join("").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("hostile connections and the log", () => {
  let engine: Server;
  let proxy: RunningProxy;
  let service: RunningService;
  const proxyLogs = sink();
  const apiLogs = sink();
  beforeAll(async () => {
    engine = createServer((req, res) => (req.resume(), req.on("end", () => res.writeHead(503, { "content-type": "application/json" }).end('{"error":"not now"}'))));
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    proxy = await startProxyOver(engine, createLogger("info", proxyLogs.stream));
    const config = buildConfig({ NEARDUP_PORT: "0", NEARDUP_HOST: "127.0.0.1", NEARDUP_ENGINE_URL: `http://127.0.0.1:${(engine.address() as { port: number }).port}`, NEARDUP_WORKERS: "0" });
    service = await startService(config, { logger: createLogger("info", apiLogs.stream), retryDelayMs: 60_000, startLocalEngine: () => Promise.reject(new Error("not used")) });
  });
  afterAll(async () => {
    await proxy?.close();
    await service?.close();
    await new Promise((resolve) => engine.close(resolve));
  });

  it.each([
    ["proxy", "/logs-1/_bulk", "proxy", () => proxy.url, proxyLogs],
    ["API", "/v1/check", "api", () => service.url, apiLogs],
  ])("the %s writes one line of each kind for 40 hostile connections, not one each", async (_name, path, label, url, logs) => {
    await hostile(url(), path, 20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = logs.lines().map((l) => String(l.msg));
    expect(lines.filter((m) => m === `${label}: request body ended before its Content-Length; nothing was written`)).toHaveLength(1);
    expect(lines.filter((m) => m === `${label}: malformed HTTP request`)).toHaveLength(1);
    // Still answered, each of them: the limit is on the log only.
    const answer = await rawHttp(url(), `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{}`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });
});
