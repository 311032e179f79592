/**
 * The proxy's writer pairs each write the service makes with the plan (the client's action and source line)
 * of the document written. Two documents with one `_id` in a chunk, the first not written (skipped, rejected,
 * refused): the second's write took the first's plan, and the engine got the first document's bytes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../../src/engine/types.js";
import { createUpstream, type Upstream } from "../../../src/proxy/upstream.js";
import { WriteThrough, type WritePlan } from "../../../src/proxy/write-through.js";

describe("WriteThrough pairs a write with its own document's plan", () => {
  const bodies: string[] = [];
  let server: http.Server;
  let upstream: Upstream;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        bodies.push(body);
        const n = body.split("\n").filter((l) => l !== "").length / 2;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ errors: false, items: Array.from({ length: n }, () => ({ index: { _index: "logs", _id: "x", status: 201, result: "created" } })) }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    upstream = createUpstream({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    upstream.close();
    await new Promise((r) => server.close(r));
  });

  const plan = (source: Record<string, unknown>, sourceLine: string): WritePlan => ({ op: "index", meta: "{}", query: "", headers: {}, source, sourceLine });

  it("takes the plan whose source the written document was built from, not the first for the id", async () => {
    const writer = new WriteThrough({} as Engine, upstream, 5_000);
    const first = { text: "\u200b", v: 1 };
    const second = { text: "hello world", v: 2 };
    const a = plan(first, '{"text":"\\u200b","v":1.0}');
    const b = plan(second, '{"text":"hello world","v":2.0}');
    writer.expect("x", a);
    writer.expect("x", b);
    bodies.length = 0;
    // The service writes the second document only (the first was refused): a source built from it.
    await writer.engine.bulk([{ index: { _index: "logs", _id: "x" } }, { ...second, neardup: { status: "original" } }]);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain('"hello world","v":2.0}');
    expect(b.result).toMatchObject({ status: 201 });
    expect(a.result).toBeUndefined();
  });

  it("with identical sources for one id, takes them first in, first out", async () => {
    const writer = new WriteThrough({} as Engine, upstream, 5_000);
    const same = { text: "t" };
    const a = plan(same, '{"text":"t"} ');
    const b = plan({ ...same }, '{"text":"t"}  ');
    writer.expect("x", a);
    writer.expect("x", b);
    await writer.engine.bulk([{ index: { _index: "logs", _id: "x" } }, { ...same, neardup: {} }, { index: { _index: "logs", _id: "x" } }, { ...same, neardup: {} }]);
    expect(a.result).toBeDefined();
    expect(b.result).toBeDefined();
  });
});
