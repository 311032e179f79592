/**
 * Request lines a hostile or broken client can send to the `_bulk` proxy. Each
 * gets a 400 in the engine's error shape, and the proxy keeps serving: before,
 * a path that `new URL` or `decodeURIComponent` refused threw inside the
 * request listener and took the whole sidecar down.
 */
import http from "node:http";
import net from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIndexRules, startProxy, type RunningProxy } from "../../../src/proxy/index.js";
import { parseChunkRequest } from "../../../src/proxy/peer.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { sharedFingerprinter } from "../../helpers/api.js";
import { startProxyOver } from "../../helpers/proxy.js";

/** Sends one raw request line (no client library normalizes it) and reads the status and body. */
function raw(url: string, requestLine: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.end(`${requestLine}\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
  });
}

/** A proxy with no engine behind it: nothing listens on port 9, so what it forwards answers 503, which is not what these tests look for. */
function bareProxy(maxInflightBytes?: number, maxInflightWaitMs?: number): Promise<RunningProxy> {
  return startProxy({
    host: "127.0.0.1",
    port: 0,
    connection: { url: "http://127.0.0.1:9", requestTimeoutMs: 2_000 },
    rules: parseIndexRules("logs-*:message"),
    dedup: resolveDedupOptions({}),
    engine: () => undefined,
    fingerprinter: sharedFingerprinter,
    ...(maxInflightBytes === undefined ? {} : { maxInflightBytes }),
    ...(maxInflightWaitMs === undefined ? {} : { maxInflightWaitMs }),
  });
}

describe("the _bulk proxy and hostile request lines", () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await bareProxy();
  });
  afterAll(async () => proxy?.close());

  it.each([
    ["POST /%E0%A4%A/_bulk HTTP/1.1", "index name"],
    ["PUT /logs-%ZZ/_bulk HTTP/1.1", "index name"],
    ["GET /_search#frag HTTP/1.1", "path"],
  ])("%s answers 400 naming the %s, and the proxy keeps serving", async (line, what) => {
    const r = await raw(proxy.url, line);
    expect(r.status).toBe(400);
    const body = JSON.parse(r.body) as { status: number; error: { type: string; reason: string } };
    expect(body.status).toBe(400);
    expect(body.error.type).toBe("illegal_argument_exception");
    expect(body.error.reason).toContain(what);
    // Still alive: a well-formed bulk is answered (503: no engine connected in this test).
    const next = await raw(proxy.url, "POST /logs-1/_bulk HTTP/1.1");
    expect(next.status).toBe(503);
  });
});

describe("the proxy's pass-through and an absolute-form request line", () => {
  it("sends the engine the path and query, not the client's absolute URL (the engine got `http://elsewhere/...` as its target)", async () => {
    const seen: string[] = [];
    const engine = http.createServer((req, res) => {
      seen.push(req.url ?? "");
      res.setHeader("content-type", "application/json");
      res.end("{}");
    });
    await new Promise<void>((r) => engine.listen(0, "127.0.0.1", r));
    const proxy = await startProxyOver(engine);
    // The socket stays open until the answer (raw() half-closes it, and the proxy then drops a pass-through).
    const get = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(proxy.url);
        const socket = net.connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
        let text = "";
        socket.setEncoding("utf8");
        socket.on("data", (d: string) => (text += d));
        socket.on("error", reject);
        socket.on("close", () => resolve(text.slice(0, 12)));
      });
    try {
      expect(await get("http://elsewhere.example:9200/_cluster/health?pretty")).toBe("HTTP/1.1 200");
      expect(await get("/_cat/../_cat/indices")).toBe("HTTP/1.1 200");
      // A path starting with // names no host: it goes as sent, for the engine's own answer (it was a 400 here, and
      // `//_bulk`, which the engines serve as a _bulk, went through undeduplicated).
      expect(await get("//")).toBe("HTTP/1.1 200");
      expect(await get("//[::1/_search")).toBe("HTTP/1.1 200");
      expect(seen).toEqual(["/_cluster/health?pretty", "/_cat/../_cat/indices", "//", "//[::1/_search"]); // an origin-form target goes as sent
    } finally {
      await proxy.close();
      await new Promise((r) => engine.close(r));
    }
  });
});

describe("the _bulk proxy and bodies that do not decode", () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await bareProxy();
  });
  afterAll(async () => proxy?.close());

  it.each(["gzip", "deflate", "x-gzip"])("a plain body sent as %s answers 400 naming Content-Encoding (it was forwarded, and the engine's reset came back as a 503)", async (encoding) => {
    const r = await fetch(`${proxy.url}/logs-1/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson", "content-encoding": encoding }, body: '{"index":{}}\n{"message":"hi"}\n' });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { type: string; reason: string } };
    expect(body.error.type).toBe("illegal_argument_exception");
    expect(body.error.reason).toContain("Content-Encoding");
  });

  // Audit 23, F3 and F4: forwarded, `zstd` got a 503 "engine unreachable" (OpenSearch drops the connection) and a
  // plain body labelled `br` was stored without dedup or marker (both engines read it as plain NDJSON); neither
  // engine decodes either. This proxy has no engine (port 9): a request it forwarded would answer 503.
  it.each([
    ["zstd", Buffer.from("28b52ffd", "hex")],
    ["br", brotliCompressSync(Buffer.from('{"index":{}}\n{"message":"hi"}\n'))],
    ["br", Buffer.from('{"index":{}}\n{"message":"hi"}\n')],
    ["compress", Buffer.from('{"index":{}}\n{"message":"hi"}\n')],
    ["gzip, gzip", gzipSync(gzipSync('{"index":{}}\n{"message":"hi"}\n'))],
  ])("a body sent as %s is refused 415 naming the encoding, before anything is sent", async (encoding, body) => {
    const r = await fetch(`${proxy.url}/logs-1/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson", "content-encoding": encoding }, body });
    expect(r.status).toBe(415);
    expect(r.headers.get("retry-after")).toBeNull();
    const answer = (await r.json()) as { status: number; error: { type: string; reason: string; root_cause: { type: string }[] } };
    expect(answer.status).toBe(415);
    expect(answer.error.type).toBe("neardup_unsupported_content_encoding_exception");
    expect(answer.error.root_cause[0]!.type).toBe("neardup_unsupported_content_encoding_exception");
    expect(answer.error.reason).toContain(`Content-Encoding [${encoding}]`);
    expect(answer.error.reason).toContain("Nothing was written");
  });
});

describe("the _bulk proxy's budget of bodies in flight", () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await bareProxy(1_000, 400);
  });
  afterAll(async () => proxy?.close());

  const post = (body: Buffer, headers: Record<string, string> = {}, at = proxy) =>
    fetch(`${at.url}/logs-1/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson", ...headers }, body });

  /** A connection that sent a `_bulk`'s headers announcing `length` bytes, then `sent` of them; its answer accumulates in `answer()`. */
  const partial = async (length: number | "chunked", sent: Buffer, at = proxy) => {
    const { hostname, port } = new URL(at.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((r) => socket.once("connect", r));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (answer += d));
    const framing = length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`;
    socket.write(`POST /logs-1/_bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n${framing}\r\nConnection: close\r\n\r\n`);
    if (sent.length > 0) socket.write(length === "chunked" ? Buffer.concat([Buffer.from(`${sent.length.toString(16)}\r\n`), sent, Buffer.from("\r\n")]) : sent);
    await new Promise((r) => setTimeout(r, 100));
    return { socket, answer: () => answer };
  };

  it("counts bytes as they arrive: idle connections that announced large bodies hold nothing (they held the budget for 300 s)", async () => {
    const idle = [await partial(900, Buffer.alloc(0)), await partial("chunked", Buffer.alloc(0)), await partial(100 * 1024 * 1024, Buffer.alloc(0))];
    expect((await post(Buffer.alloc(500, 0x20))).status).toBe(503); // went in (no engine in this test); it was a 429
    for (const { socket } of idle) socket.destroy();
  });

  it("a body over the budget waits, its socket paused, while another holds it, and goes in when it is given back (parallel_bulk dropped the 429s)", async () => {
    // A proxy whose bodies may wait 10 s for the budget: a loaded machine may stall this test by several hundred ms.
    const patient = await bareProxy(1_000, 10_000);
    try {
      // A: 900 bytes announced, 800 of them sent, the rest held back.
      const { socket: a, answer: answerA } = await partial(900, Buffer.alloc(800, 0x20), patient);
      let answeredB = false;
      const b = post(Buffer.alloc(500, 0x20), {}, patient).then((r) => ((answeredB = true), r));
      await new Promise((r) => setTimeout(r, 150));
      expect(answeredB).toBe(false); // waiting, not refused
      a.end(Buffer.alloc(100, 0x20));
      await new Promise((r) => a.once("close", r));
      expect(answerA()).toMatch(/^HTTP\/1\.1 503/); // A went in (no engine in this test)
      expect((await b).status).toBe(503); // and then B
    } finally {
      await patient.close();
    }
  });

  it("answers 429 with Retry-After to a body that waited longer than the limit, and at once to a gzip body that decodes past the budget; one request alone always goes in", async () => {
    const { socket: a, answer: answerA } = await partial(900, Buffer.alloc(800, 0x20));
    const started = Date.now();
    const b = await post(Buffer.alloc(500, 0x20));
    expect(b.status).toBe(429);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350); // it waited first
    expect(b.headers.get("retry-after")).toBe("1");
    expect(((await b.json()) as { error: { type: string } }).error.type).toBe("es_rejected_execution_exception");
    // A decoded gzip larger than the budget is refused while A is held.
    const bomb = gzipSync(Buffer.alloc(5_000, 0x0a));
    const c = await post(bomb, { "content-encoding": "gzip" });
    expect(c.status).toBe(429);
    a.end(Buffer.alloc(100, 0x20));
    await new Promise((r) => a.once("close", r));
    expect(answerA()).toMatch(/^HTTP\/1\.1 503/);
    // Alone, both go in.
    expect((await post(Buffer.alloc(500, 0x20))).status).toBe(503);
    expect((await post(bomb, { "content-encoding": "gzip" })).status).toBe(503);
  });
});

describe("a chunk forwarded by another sidecar's proxy", () => {
  const chunk = (docs: unknown[]) => ({ index: "logs-1", query: "", mayCreate: true, policy: "mark", headers: {}, docs });
  const doc = (time: unknown) => ({ op: "index", id: "x", idGiven: true, time, meta: "{}", source: { message: "hello" }, text: "hello" });

  it("refuses a time no engine date can hold, naming the document", () => {
    for (const time of [Number.POSITIVE_INFINITY, 9007199254740991, -5, 1.5]) expect(() => parseChunkRequest(chunk([doc(time)]))).toThrow(/docs\[0\] is not a document/);
    expect(parseChunkRequest(chunk([doc(1_700_000_000_000)])).docs).toHaveLength(1);
  });

  it("refuses a source line that is not a string, naming the document", () => {
    for (const sourceLine of [5, null, { message: "hello" }]) expect(() => parseChunkRequest(chunk([{ ...doc(1), sourceLine }]))).toThrow(expect.objectContaining({ code: "INVALID_INPUT", status: 400, message: expect.stringMatching(/docs\[0\] is not a document/) }));
    expect(parseChunkRequest(chunk([{ ...doc(1), sourceLine: '{"message":"hello"}' }])).docs[0]!.sourceLine).toBe('{"message":"hello"}');
  });

  it("refuses action metadata that is not a flat JSON object's text, or that sets _index or _id (the writer sets those)", () => {
    for (const meta of [{}, "[]", "{", '{"_id":"y"}', '{"_index":"other"}', '{"a":{"b":{"c":1}}}']) expect(() => parseChunkRequest(chunk([{ ...doc(1), meta }]))).toThrow(/docs\[0\] is not a document/);
    expect(parseChunkRequest(chunk([{ ...doc(1), meta: '{"routing":9007199254740995}' }])).docs[0]!.meta).toBe('{"routing":9007199254740995}');
  });

  it("refuses more documents than a _bulk may hold, with a 413", () => {
    expect(() => parseChunkRequest(chunk([doc(1), doc(2), doc(3)]), 2)).toThrow(expect.objectContaining({ code: "TOO_LARGE", status: 413 }));
    expect(parseChunkRequest(chunk([doc(1), doc(2)]), 2).docs).toHaveLength(2);
  });
});
