/**
 * Issue 15: credentials never leave. A fake engine (node http on port 0)
 * echoes the Authorization header it receives in every error body; whatever
 * it answers, neither the header nor the password may appear in any response
 * body or header, in /readyz, or in the logs.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../../src/config/config.js";
import { createLogger } from "../../../src/server/logger.js";
import { startService, type RunningService } from "../../../src/server/service.js";

const USER = "elastic";
const PASSWORD = "pw-Hunter2-Secret";
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64");

type Mode = "down" | "search-errors";

function fakeEngine(): Promise<{ server: Server; url: string; setMode(m: Mode): void; seenAuth: string[] }> {
  let mode: Mode = "down";
  const seenAuth: string[] = [];
  const echo = (req: IncomingMessage) => `request refused; you sent Authorization: ${req.headers.authorization} to ${req.url} as ${USER}:${PASSWORD}@proxy`;
  const server = createServer((req, res) => {
    seenAuth.push(String(req.headers.authorization));
    req.resume();
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (mode === "down") return send(503, { error: { type: "unavailable_exception", reason: echo(req) }, status: 503 });
    if (req.url === "/" || req.url?.startsWith("/?")) return send(200, { cluster_name: "fake", version: { number: "2.19.0", distribution: "opensearch" } });
    if (req.url?.includes("_search") || req.url?.includes("_msearch") || req.url?.includes("_mget") || req.url?.includes("_doc")) {
      return send(400, { error: { type: "illegal_argument_exception", reason: echo(req), root_cause: [{ type: "x", reason: echo(req) }] }, status: 400 });
    }
    if (req.url?.includes("_cluster/health")) return send(500, { error: { type: "boom", reason: echo(req) }, status: 500 });
    if (req.method === "HEAD") {
      res.writeHead(200);
      return res.end();
    }
    return send(200, { acknowledged: true });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      resolve({ server, url: `http://127.0.0.1:${port}`, setMode: (m) => (mode = m), seenAuth });
    });
  });
}

describe("credentials never leave (issue 15)", () => {
  let fake: Awaited<ReturnType<typeof fakeEngine>>;
  let service: RunningService;
  const logs: string[] = [];
  const seen: string[] = [];

  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(service.url + path, init);
    const text = await res.text();
    seen.push(`${res.status} ${JSON.stringify([...res.headers.entries()])} ${text}`);
    return { status: res.status, text };
  };
  const post = (path: string, body: unknown) => call(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    fake = await fakeEngine();
    const config = buildConfig({
      NEARDUP_PORT: "0",
      NEARDUP_ENGINE_URL: fake.url,
      NEARDUP_ENGINE_USERNAME: USER,
      NEARDUP_ENGINE_PASSWORD: PASSWORD,
      NEARDUP_ENGINE_PROBE_MS: "200",
      NEARDUP_LOG_LEVEL: "debug",
    });
    const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) });
    service = await startService(config, {
      logger: createLogger("debug", sink),
      retryDelayMs: 100,
      startLocalEngine: () => Promise.reject(new Error("not used")),
    });
  });
  afterAll(async () => {
    await service.close();
    await new Promise((r) => fake.server.close(r));
  });

  it("while the engine refuses: /readyz and 503 bodies carry no credential", async () => {
    let ready = await call("/readyz");
    // The reason alternates between "connecting to ..." and the last failure; wait for the failure.
    for (let i = 0; i < 100 && !ready.text.includes("unavailable_exception"); i++) {
      await new Promise((r) => setTimeout(r, 20));
      ready = await call("/readyz");
    }
    expect(ready.status).toBe(503);
    expect(ready.text).toContain("unavailable_exception");
    expect((await post("/v1/check", { text: "hello there" })).status).toBe(503);
  });

  it("once connected, engine errors forwarded in 502 bodies and the failing probe carry no credential", async () => {
    fake.setMode("search-errors");
    await service.engineReady;
    const check = await post("/v1/check", { text: "hello there, a text long enough to look up" });
    expect(check.status).toBeGreaterThanOrEqual(400);
    const doc = await post("/v1/search", { id: "some-id" });
    expect(doc.status).toBeGreaterThanOrEqual(400);
    const cluster = await call("/v1/documents/some-id/duplicates");
    expect(cluster.status).toBeGreaterThanOrEqual(400);
    expect([check.text, doc.text, cluster.text].join("\n")).toContain("illegal_argument_exception");
    let ready = await call("/readyz");
    for (let i = 0; i < 100 && !ready.text.includes("boom"); i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = await call("/readyz");
    }
    expect(ready.status).toBe(503);
    expect(ready.text).toContain("boom");
  });

  it("the fake engine did receive the credential, and it appears in no answer and no log line", () => {
    expect(fake.seenAuth).toContain(`Basic ${BASIC}`);
    const everything = [...seen, ...logs].join("\n");
    expect(everything.length).toBeGreaterThan(100);
    for (const secret of [PASSWORD, BASIC, `${USER}:${PASSWORD}`]) expect(everything).not.toContain(secret);
  });
});
