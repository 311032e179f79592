/**
 * Requests Node's HTTP parser refuses (a body shorter than its Content-Length, headers too large) get the
 * API's error body, not Node's empty `400 Bad Request`; the service keeps serving. The running service is
 * started on an engine that answers nothing useful: the parser's refusal comes before any route.
 */
import { createServer, type Server } from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../../src/config/config.js";
import { clientErrorAnswer } from "../../../src/server/client-error.js";
import { createLogger } from "../../../src/server/logger.js";
import { startService, type RunningService } from "../../../src/server/service.js";
import { rawHttp } from "../../helpers/raw-http.js";

/** The status line's code and the JSON body of a raw HTTP answer. */
function parse(answer: string): { status: number; body: unknown; head: string } {
  const [head, body] = answer.split("\r\n\r\n", 2) as [string, string | undefined];
  return { status: Number(head.split(" ")[1]), head, body: body ? JSON.parse(body) : undefined };
}

describe("the API answers what Node's HTTP parser refuses in its own error shape", () => {
  let engine: Server;
  let service: RunningService;
  const logs: string[] = [];

  beforeAll(async () => {
    engine = createServer((_req, res) => res.writeHead(503, { "content-type": "application/json" }).end('{"error":"not now"}'));
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const config = buildConfig({ NEARDUP_PORT: "0", NEARDUP_HOST: "127.0.0.1", NEARDUP_ENGINE_URL: `http://127.0.0.1:${(engine.address() as { port: number }).port}`, NEARDUP_WORKERS: "0" });
    const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) });
    service = await startService(config, { logger: createLogger("info", sink), retryDelayMs: 60_000, startLocalEngine: () => Promise.reject(new Error("not used")) });
  });

  afterAll(async () => {
    await service?.close();
    await new Promise((resolve) => engine.close(resolve));
  });

  it("a body that ends before its Content-Length: 400 INVALID_INPUT naming the body and the length, and a log line", async () => {
    const answer = parse(await rawHttp(service.url, 'POST /v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":"ab'));
    expect(answer.status).toBe(400);
    expect(answer.head.toLowerCase()).toContain("content-type: application/json");
    expect(answer.body).toEqual({ error: { code: "INVALID_INPUT", field: "body", message: expect.stringContaining("before the 100 bytes its Content-Length announced") } });
    expect(logs.join("")).toContain("POST /v1/check");
    expect(logs.join("")).toContain("request body ended before its Content-Length");
  });

  it("headers too large: 431 TOO_LARGE naming the headers", async () => {
    const answer = parse(await rawHttp(service.url, `GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`));
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({ error: { code: "TOO_LARGE", field: "headers" } });
  });

  it("keeps serving afterwards", async () => {
    const res = await fetch(`${service.url}/livez`);
    expect(res.status).toBe(200);
  });

  it("names each parser error's status as Node does", () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(clientErrorAnswer(err("HPE_INVALID_EOF_STATE"), undefined)).toMatchObject({ status: 400, kind: "short_body" });
    expect(clientErrorAnswer(err("HPE_HEADER_OVERFLOW"), undefined)).toMatchObject({ status: 431, kind: "headers_too_large" });
    expect(clientErrorAnswer(err("ERR_HTTP_REQUEST_TIMEOUT"), undefined)).toMatchObject({ status: 408, kind: "timeout" });
    expect(clientErrorAnswer(err("HPE_INVALID_METHOD"), undefined)).toMatchObject({ status: 400, kind: "malformed", reason: expect.stringContaining("HPE_INVALID_METHOD") });
  });
});
