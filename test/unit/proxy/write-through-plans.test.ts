/**
 * The proxy's writer sends each write the service makes with the plan (the client's action and source line)
 * of the document written. Plans were queued by `_id`: with two documents with one `_id` in a chunk, the first
 * not written (skipped, rejected, refused), the second's write took the first's plan, and the engine got the
 * first document's bytes; a write sent again after re-creating the index took another plan, or none.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../../src/engine/types.js";
import { createUpstream, type Upstream } from "../../../src/proxy/upstream.js";
import { WriteThrough, withPlan, type WritePlan } from "../../../src/proxy/write-through.js";

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

  const plan = (sourceLine: string, meta = "{}"): WritePlan => ({ op: "index", meta, query: "", headers: {}, sourceLine });
  const action = { index: { _index: "logs", _id: "x" } };

  it("writes each document with its own plan, even beside an unwritten one with the same id and an equal source", async () => {
    const writer = new WriteThrough({} as Engine, upstream, 5_000);
    const a = plan('{"text":"t","v":1.0}', '{"routing":"ra"}');
    const b = plan('{"text":"t","v":1}', '{"routing":"rb"}');
    const sourceA = withPlan({ text: "t", v: 1 }, a);
    const sourceB = withPlan({ text: "t", v: 1 }, b);
    expect(JSON.stringify(sourceA)).toBe('{"text":"t","v":1}'); // the plan is not part of the document
    bodies.length = 0;
    // The service writes the second document only (the first was skipped): a source built from it.
    await writer.engine.bulk([action, { ...sourceB, neardup: { status: "original" } }]);
    expect(bodies).toEqual(['{"index":{"_index":"logs","_id":"x","routing":"rb"}}\n{"neardup":{"status":"original"},"text":"t","v":1}\n']);
    expect(b.result).toMatchObject({ status: 201 });
    expect(a.result).toBeUndefined();
  });

  it("a write sent again (after the index is re-created) goes out with the same plan", async () => {
    const writer = new WriteThrough({} as Engine, upstream, 5_000);
    const b = plan('{"text":"u"}', '{"require_alias":true}');
    const source = { ...withPlan({ text: "u" }, b), neardup: {} };
    bodies.length = 0;
    await writer.engine.bulk([action, source]);
    await writer.engine.bulk([action, source]);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[1]).toContain('"require_alias":true');
  });

  it("a write without a plan goes out as the service made it", async () => {
    const writer = new WriteThrough({} as Engine, upstream, 5_000);
    bodies.length = 0;
    await writer.engine.bulk([action, { text: "v", neardup: {} }]);
    expect(bodies).toEqual(['{"index":{"_index":"logs","_id":"x"}}\n{"text":"v","neardup":{}}\n']);
  });
});
