/**
 * A `_bulk` request whose body ends before its Content-Length (the client
 * closed its side of the connection early) got Node's own empty
 * `400 Bad Request`, where the engines' clients read the engine's error JSON.
 * It gets a 400 in the engine's shape naming Content-Length now, nothing of it
 * reaches the engine, and the proxy logs it and keeps serving. A client that
 * is gone altogether gets no answer and is logged too.
 */
import http from "node:http";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningProxy } from "../../../src/proxy/index.js";
import { createLogger } from "../../../src/server/logger.js";
import { rawHttp } from "../../helpers/raw-http.js";
import { startProxyOver } from "../../helpers/proxy.js";

/** Sends `head` and `body` on a raw socket, then ends its side (`end`) or drops the connection (`destroy`); resolves with what came back. */
const send = (url: string, head: string, body: string, close: "end" | "destroy"): Promise<string> => rawHttp(url, head + body, { close });

const ACTION = '{"index":{"_index":"logs-1","_id":"a"}}\n{"message":"hello"}\n';
const head = (contentType: string, length: number) => `POST /logs-1/_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;

describe("the _bulk proxy and a body shorter than its Content-Length", () => {
  const seen: string[] = [];
  const logs = new PassThrough();
  const logged: string[] = [];
  logs.on("data", (line: Buffer) => logged.push(line.toString()));
  let engine: http.Server;
  let proxy: RunningProxy;
  beforeAll(async () => {
    engine = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"took":1,"errors":false,"items":[]}'));
    });
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    proxy = await startProxyOver(engine, createLogger("info", logs));
  });
  afterAll(async () => {
    await proxy?.close();
    engine?.close();
  });

  it("the test's engine gets what the proxy forwards: a whole body of another content type goes to it as sent", async () => {
    const text = await send(proxy.url, head("text/plain", ACTION.length), ACTION, "end");
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(seen).toEqual(["POST /logs-1/_bulk"]);
    seen.length = 0;
  });

  it.each(["application/x-ndjson", "text/plain"])("a body cut short (%s) gets a 400 in the engine's error shape naming Content-Length, and nothing reaches the engine", async (contentType) => {
    const text = await send(proxy.url, head(contentType, 1000), ACTION, "end");
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text.toLowerCase()).toContain("content-type: application/json");
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as { status: number; error: { type: string; reason: string } };
    expect(body.status).toBe(400);
    expect(body.error.type).toBe("illegal_argument_exception");
    expect(body.error.reason).toBe(`the request body ended before the 1000 bytes its Content-Length announced: the client closed its side of the connection early`);
    expect(seen).toEqual([]);
    expect(logged.join("")).toContain("request body ended before its Content-Length");
  });

  it("a client gone mid-body gets nothing, nothing reaches the engine, it is logged, and the proxy keeps serving", async () => {
    // A proxy of its own: the one above logged a body cut short less than 10 s ago, and writes at most one line of a
    // kind per 10 s (audit 23, F8).
    const own: string[] = [];
    const ownLogs = new PassThrough();
    ownLogs.on("data", (line: Buffer) => own.push(line.toString()));
    const fresh = await startProxyOver(engine, createLogger("info", ownLogs));
    try {
      await send(fresh.url, head("application/x-ndjson", 1000), ACTION, "destroy");
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toEqual([]);
      expect(own.join("")).toMatch(/_bulk client went away|request body ended before its Content-Length/);
      const next = await send(fresh.url, head("text/plain", ACTION.length), ACTION, "end");
      expect(next).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      await fresh.close();
    }
  });
});
