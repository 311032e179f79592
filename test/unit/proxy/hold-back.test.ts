/**
 * After a fingerprinted item got a retryable per-item error, the later items of the request touching the same
 * document get that error too: an update must not land on (or 404 for) a write that was not acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { BulkHandler } from "../../../src/proxy/bulk.js";
import type { ServicePool } from "../../../src/proxy/pool.js";
import { parseIndexRules } from "../../../src/proxy/rules.js";
import type { Upstream } from "../../../src/proxy/upstream.js";
import { startStandInBulk, type StandInBulk } from "../../helpers/stand-in-bulk.js";

describe("BulkHandler after a per-item retry", () => {
  let engine: StandInBulk;
  let upstream: Upstream;
  const received: string[] = [];
  beforeAll(async () => {
    // The engine's `_bulk` for the items that pass through: each `update` answered 200.
    engine = await startStandInBulk((body) => {
      const actions = body.split("\n").filter((l) => l.startsWith("{\"update\""));
      received.push(...actions);
      return { took: 1, errors: false, items: actions.map((a) => ({ update: { _index: "logs-a", _id: (JSON.parse(a) as { update: { _id: string } }).update._id, status: 200, result: "updated" } })) };
    });
    upstream = engine.upstream;
  });
  afterAll(() => engine.close());

  it("answers the later items touching that document with the same retryable error and sends them nowhere; other documents go on", async () => {
    // The service answers RETRY for document "x" (as for a near-duplicate whose original failed for the engine's load).
    const service = {
      index: (docs: { id: string }[]) =>
        Promise.resolve(docs.map((d) => (d.id === "x" ? new NeardupError("RETRY", `document "x" was not stored: its original "o" could not be written; send it again`) : { id: d.id, status: "original", action: "indexed", duplicate_of: null, distance: null, similarity: null, reason: null }))),
      options: { pipelineChunk: 100 },
    };
    const pool = { get: () => Promise.resolve({ service, writer: { results: () => [] }, lease: undefined }), existing: () => undefined } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    const body = [
      '{"index":{"_index":"logs-a","_id":"x"}}',
      '{"message":"a text to fingerprint"}',
      '{"update":{"_index":"logs-a","_id":"x"}}',
      '{"doc":{"tag":"u"}}',
      '{"update":{"_index":"logs-a","_id":"y"}}',
      '{"doc":{"tag":"v"}}',
      "",
    ].join("\n");
    const answer = await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: {}, body });
    const items = (answer as { body: { items: Record<string, { status: number; error?: { type: string; reason: string } }>[] } }).body.items;
    const update = items[1]!.update!;
    expect(items.map((it) => Object.values(it)[0]!.status)).toEqual([429, 429, 200]); // was [429, 200, 200]: the update ran
    expect(update.error).toMatchObject({ type: "es_rejected_execution_exception" });
    expect(update.error!.reason).toContain("send it again");
    expect(received.map((a) => (JSON.parse(a) as { update: { _id: string } }).update._id)).toEqual(["y"]);
  });
  it("a write whose outcome is unknown is a per-item 429 that shippers retry, with the reason saying so (audit 14, F6: a 503 the client helpers report failed and never send again)", async () => {
    const unknown = new NeardupError("ENGINE_UNAVAILABLE", "the engine at http://127.0.0.1:9200 is unreachable (ETIMEDOUT); the write may have been written: send it again (the same id), and it is decided again", { details: { outcomeUnknown: true } });
    const overloaded = new NeardupError("ENGINE_UNAVAILABLE", "the recent-writes window is full");
    const service = {
      index: (docs: { id: string }[]) => Promise.resolve(docs.map((d) => (d.id === "x" ? unknown : overloaded))),
      options: { pipelineChunk: 100 },
    };
    const pool = { get: () => Promise.resolve({ service, writer: { results: () => [] }, lease: undefined }), existing: () => undefined } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    const body = ['{"index":{"_index":"logs-a","_id":"x"}}', '{"message":"a text to fingerprint"}', '{"index":{"_index":"logs-a","_id":"z"}}', '{"message":"another text"}', ""].join("\n");
    const answer = await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: {}, body });
    const items = (answer as { body: { items: Record<string, { status: number; error?: { type: string; reason: string } }>[] } }).body.items;
    expect(items[0]!.index).toMatchObject({ status: 429, error: { type: "es_rejected_execution_exception" } });
    expect(items[0]!.index!.error!.reason).toContain("may have been written");
    // Audit 23, F5: any retryable failure of an item is a 429 (this was a 503, which the helpers drop).
    expect(items[1]!.index).toMatchObject({ status: 429, error: { type: "es_rejected_execution_exception" } });
    expect(items[1]!.index!.error!.reason).toBe("neardup: the recent-writes window is full; send this item again");
  });

  it("an engine that refuses the connection mid-bulk gives its items a per-item 429 naming the refusal, as the items of a lost connection get (audit 23, F5: per-item 503, which the bulk helpers never send again)", async () => {
    const reset = new NeardupError("ENGINE_UNAVAILABLE", "the engine at http://127.0.0.1:9200 is unreachable (ECONNRESET); the write may have been written: send it again (the same id), and it is decided again", { details: { outcomeUnknown: true } });
    const refused = new NeardupError("ENGINE_UNAVAILABLE", "the engine at http://127.0.0.1:9200 is unreachable (ECONNREFUSED)");
    const service = {
      index: (docs: { id: string }[]) => Promise.resolve(docs.map((d) => (d.id === "x" ? reset : refused))),
      options: { pipelineChunk: 100 },
    };
    const pool = { get: () => Promise.resolve({ service, writer: { results: () => [] }, lease: undefined }), existing: () => undefined } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    const body = ['{"index":{"_index":"logs-a","_id":"x"}}', '{"message":"a text to fingerprint"}', '{"create":{"_index":"logs-a","_id":"z"}}', '{"message":"another text"}', ""].join("\n");
    const answer = await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: {}, body });
    const items = (answer as { body: { items: Record<string, { status: number; error?: { type: string; reason: string } }>[] } }).body.items;
    expect(items.map((it) => Object.values(it)[0]!.status)).toEqual([429, 429]);
    expect(items[1]!.create!.error).toEqual({ type: "es_rejected_execution_exception", reason: "neardup: the engine at http://127.0.0.1:9200 is unreachable (ECONNREFUSED); send this item again", index: "logs-a" });
  });
});
