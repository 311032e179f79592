/**
 * A segment with items that pass through makes the dedup services ready first
 * (BulkHandler `prepare`); a service that cannot be set up is tried once per
 * segment, not once there and again for its items. A saturated analysis pool
 * answers per-item 429s, which the bulk helpers retry (503 items they drop).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { BulkHandler } from "../../../src/proxy/bulk.js";
import type { ServicePool } from "../../../src/proxy/pool.js";
import { parseIndexRules } from "../../../src/proxy/rules.js";
import type { Upstream } from "../../../src/proxy/upstream.js";
import { startStandInBulk, type StandInBulk } from "../../helpers/stand-in-bulk.js";

describe("BulkHandler when neardup cannot take the items now", () => {
  let engine: StandInBulk;
  let upstream: Upstream;
  beforeAll(async () => {
    // The engine's `_bulk`, answering each item of the pass-through write.
    engine = await startStandInBulk((body) => {
      const actions = body.split("\n").filter((l) => l.startsWith('{"delete"'));
      return { took: 1, errors: false, items: actions.map(() => ({ delete: { _index: "logs-a", _id: "x", status: 404, result: "not_found" } })) };
    });
    upstream = engine.upstream;
  });
  afterAll(() => engine.close());

  it("tries the set-up once for a segment whose pass-through items made it ready first, and answers its items 429, which the helpers send again (audit 23, F5: 503, which they drop); a request of nothing else is a whole 503", async () => {
    let calls = 0;
    const pool = {
      get: () => {
        calls += 1;
        return Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "the engine is down"));
      },
    } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    const body = ['{"delete":{"_index":"logs-a","_id":"x"}}', '{"index":{"_index":"logs-a","_id":"y"}}', '{"message":"a text to fingerprint"}', ""].join("\n");
    const answer = await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: { "content-type": "application/x-ndjson" }, body });
    expect(calls).toBe(1);
    expect(answer).toMatchObject({ kind: "json", status: 200, body: { errors: true } });
    const items = (answer as { body: { items: Record<string, { status: number }>[] } }).body.items;
    expect(items.map((it) => Object.values(it)[0]!.status)).toEqual([404, 429]);
    expect(items[1]!.index).toMatchObject({ error: { type: "es_rejected_execution_exception", reason: "neardup: the engine is down; send this item again" } });
    // Nothing written: the whole request's answer keeps the failure's own status.
    const alone = await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: { "content-type": "application/x-ndjson" }, body: body.split("\n").slice(1).join("\n") });
    expect(alone).toMatchObject({ kind: "json", status: 503, body: { error: { type: "neardup_engine_unavailable_exception", reason: "the engine is down" } } });
  });

  it("answers items a saturated analysis pool refused with a per-item 429 (the helpers retry it), and a whole 429 when the service refuses the batch", async () => {
    const overloaded = () => new NeardupError("OVERLOADED", "analysis pool is saturated; retry later");
    let throwWhole = false;
    const service = { index: (docs: unknown[]) => (throwWhole ? Promise.reject(overloaded()) : Promise.resolve(docs.map(overloaded))) };
    const pool = { get: () => Promise.resolve({ service, writer: {}, lease: undefined }) } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    const body = ['{"index":{"_index":"logs-a","_id":"y"}}', '{"message":"a text to fingerprint"}', '{"create":{"_index":"logs-a"}}', '{"message":"another text"}', ""].join("\n");
    const answer = await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: { "content-type": "application/x-ndjson" }, body });
    const items = (answer as { body: { items: Record<string, { status: number; error: { type: string } }>[] } }).body.items;
    expect(items.map((it) => Object.values(it)[0]!.status)).toEqual([429, 429]);
    expect(items.map((it) => Object.values(it)[0]!.error.type)).toEqual(["es_rejected_execution_exception", "es_rejected_execution_exception"]);
    throwWhole = true;
    expect(await handler.handle({ pathIndex: undefined, query: new URLSearchParams(), headers: { "content-type": "application/x-ndjson" }, body })).toMatchObject({ kind: "json", status: 429 });
  });

  it("answers a body of nothing but blank lines itself, as the engine would, instead of forwarding it (hostile-input audit: 99 MB of newlines held the in-flight budget 15 s); with a query parameter it goes to the engine", async () => {
    const pool = { get: () => Promise.reject(new Error("unused")) } as unknown as ServicePool;
    const handler = new BulkHandler({ upstream, rules: parseIndexRules("logs-*:message"), pool, defaultPolicy: "mark", maxBatch: 500, timeoutMs: 5000, maxTextLength: 1_000_000, timeField: "@timestamp", timeSkewMs: 60_000 });
    const body = "\n".repeat(3_000_000);
    expect(await handler.handle({ pathIndex: "logs-a", query: new URLSearchParams(), headers: { "content-type": "application/x-ndjson" }, body })).toEqual({
      kind: "json",
      status: 400,
      body: { error: { root_cause: [{ type: "action_request_validation_exception", reason: "Validation Failed: 1: no requests added;" }], type: "action_request_validation_exception", reason: "Validation Failed: 1: no requests added;" }, status: 400 },
    });
    expect(await handler.handle({ pathIndex: "logs-a", query: new URLSearchParams("refresh=bogus"), headers: {}, body })).toMatchObject({ kind: "raw" });
    expect(await handler.handle({ pathIndex: "logs-a", query: new URLSearchParams(), headers: { "content-type": "application/x-ndjson" }, body: "" })).toMatchObject({ kind: "raw" });
  });
});
