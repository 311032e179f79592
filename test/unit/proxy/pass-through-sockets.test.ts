/**
 * Audit 24, F1 and F2: a pass-through request whose client went away kept its engine socket for good (an answer
 * not read stayed paused, a request not answered yet stayed open), so 64 abandoned downloads took every socket the
 * proxy had, and every later request, `_bulk` writes included, waited for ever; requests queued for a socket then
 * piled up in memory without a bound. Now the engine request and its answer are dropped when the client goes, a
 * pass-through body that stalls is a 408, and past `maxPassThrough` requests in flight the proxy answers 429 at once.
 */
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningProxy } from "../../../src/proxy/index.js";
import { startProxyOver } from "../../helpers/proxy.js";

const BIG = Buffer.alloc(8 * 1024 * 1024, 0x61);

/** An engine stand-in: `/big` streams 8 MB, `/hold` never answers, `/` answers at once; counts its open requests. */
function standIn() {
  let open = 0;
  const closed: string[] = [];
  const server = http.createServer((req, res) => {
    open += 1;
    res.on("close", () => {
      open -= 1;
      closed.push(req.url ?? "");
    });
    req.resume();
    if (req.url === "/big") {
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(BIG.length) });
        res.end(BIG);
      });
    } else if (req.url?.startsWith("/hold")) {
      // never answers
    } else req.on("end", () => res.end('{"ok":true}'));
  });
  return { server, open: () => open, closed };
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A raw GET through the proxy that reads the status line and then hangs up without reading the body. */
function getAndHangUp(proxyUrl: string, path: string, afterMs: number): Promise<void> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`));
    socket.once("data", () => socket.pause()); // headers seen; reads nothing more
    socket.on("error", () => undefined);
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, afterMs);
  });
}

describe("pass-through requests whose client went away (audit 24, F1, F2)", () => {
  const started: { close(): Promise<void> | void }[] = [];
  afterEach(async () => {
    for (const s of started.splice(0).reverse()) await s.close();
  });
  async function setUp(extra: Parameters<typeof startProxyOver>[2] = {}) {
    const engine = standIn();
    await new Promise<void>((r) => engine.server.listen(0, "127.0.0.1", r));
    started.push({ close: () => new Promise<void>((r) => { engine.server.closeAllConnections(); engine.server.close(() => r()); }) });
    const proxy: RunningProxy = await startProxyOver(engine.server, undefined, extra);
    started.push(proxy);
    return { engine, proxy };
  }

  it("an answer the client stopped reading is dropped: its engine connection closes, and 70 such downloads leave the proxy answering", async () => {
    const { engine, proxy } = await setUp();
    await getAndHangUp(proxy.url, "/big", 300);
    await until("the engine to see the abandoned download closed", () => engine.closed.includes("/big"));
    await Promise.all(Array.from({ length: 70 }, () => getAndHangUp(proxy.url, "/big", 500)));
    const res = await fetch(`${proxy.url}/`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    await until("every abandoned download's engine request closed", () => engine.open() === 0);
  });

  it("a request the client gave up on before the engine answered is closed at the engine too", async () => {
    const { engine, proxy } = await setUp();
    await expect(fetch(`${proxy.url}/hold/1`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    await until("the engine to see the abandoned request closed", () => engine.closed.includes("/hold/1"));
    expect(engine.open()).toBe(0);
  });

  it("past maxPassThrough requests in flight, the next is answered 429 at once in the engine's shape; a slot freed takes requests again", async () => {
    const { engine, proxy } = await setUp({ maxPassThrough: 8 });
    const held = Array.from({ length: 8 }, () => new AbortController());
    const pending = held.map((c, i) => fetch(`${proxy.url}/hold/${i}`, { signal: c.signal }).catch(() => undefined));
    await until("8 requests held at the engine", () => engine.open() === 8);
    const refused = await fetch(`${proxy.url}/`, { signal: AbortSignal.timeout(5_000) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    const body = (await refused.json()) as { status: number; error: { type: string; reason: string } };
    expect(body).toMatchObject({ status: 429, error: { type: "es_rejected_execution_exception" } });
    expect(body.error.reason).toMatch(/8 pass-through requests in flight/);
    held[0]!.abort();
    await until("the aborted one gone at the engine", () => engine.open() === 7);
    let ok = 0;
    for (let i = 0; i < 50 && ok === 0; i++) {
      if ((await fetch(`${proxy.url}/`, { signal: AbortSignal.timeout(5_000) })).status === 200) ok += 1;
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(ok).toBe(1);
    for (const c of held) c.abort();
    await Promise.all(pending);
  });

  it("a pass-through body that stalls is answered 408 in the engine's shape, and its engine request is closed", async () => {
    const { engine, proxy } = await setUp({ bodyIdleMs: 300 });
    const { port } = new URL(proxy.url);
    const answer = await new Promise<string>((resolve) => {
      let got = "";
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write("PUT /hold-body/_doc/1 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"a\":"));
      socket.on("data", (c) => (got += String(c)));
      socket.on("close", () => resolve(got));
      socket.on("error", () => undefined);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/neardup_request_timeout_exception/);
    await until("the engine request closed", () => engine.open() === 0);
  });
});
