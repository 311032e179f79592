/**
 * Issue 11: one classification of engine failures for whole requests,
 * `_msearch` entries, `_mget` docs and `_bulk` items. Bodies are the engines' own shapes.
 */
import { describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { bulkItemError, classifyEngineFailure, engineFailureOf, toEngineError, type EngineFailure } from "../../../src/engine/index.js";
import { isIndexBlock } from "../../../src/engine/errors.js";
import { toBulkResult, toMsearchResults, toSourceMap } from "../../../src/engine/responses.js";

const failure = (f: Partial<EngineFailure>): EngineFailure => ({ status: undefined, type: "unknown", reason: "", causes: [], ...f });

/** An engine `{error, status}` body. */
const rejected = { error: { root_cause: [{ type: "es_rejected_execution_exception", reason: "rejected execution of coordinating operation" }], type: "es_rejected_execution_exception", reason: "rejected execution of coordinating operation" }, status: 429 };
const allShardsNoShard = {
  error: {
    root_cause: [{ type: "no_shard_available_action_exception", reason: null }],
    type: "search_phase_execution_exception",
    reason: "all shards failed",
    phase: "query",
    grouped: true,
    failed_shards: [{ shard: 0, index: "i", node: null, reason: { type: "no_shard_available_action_exception", reason: null } }],
  },
  status: 503,
};
const allShardsRecovering = {
  error: {
    root_cause: [{ type: "illegal_index_shard_state_exception", reason: "CurrentState[RECOVERING] operations only allowed when shard state is one of [POST_RECOVERY, STARTED]" }],
    type: "search_phase_execution_exception",
    reason: "all shards failed",
    failed_shards: [{ shard: 0, reason: { type: "illegal_index_shard_state_exception", reason: "CurrentState[RECOVERING]" } }],
  },
  status: 500,
};
const allShardsEmpty = { error: { root_cause: [], type: "search_phase_execution_exception", reason: "all shards failed", phase: "query", grouped: true, failed_shards: [] }, status: 503 };
const badQuery = {
  error: {
    root_cause: [{ type: "query_shard_exception", reason: "failed to create query: maxClauseCount is set to 1024" }],
    type: "search_phase_execution_exception",
    reason: "all shards failed",
    failed_shards: [{ shard: 0, reason: { type: "query_shard_exception", reason: "failed to create query" } }],
  },
  status: 400,
};

describe("classifyEngineFailure", () => {
  it("calls overload and shards that are not there yet ENGINE_UNAVAILABLE, whatever the status", () => {
    for (const body of [rejected, allShardsNoShard, allShardsRecovering, allShardsEmpty]) {
      expect(classifyEngineFailure(engineFailureOf(body)!, "request"), JSON.stringify(body)).toBe("ENGINE_UNAVAILABLE");
      expect(classifyEngineFailure(engineFailureOf(body)!, "document")).toBe("ENGINE_UNAVAILABLE");
    }
    // The same "all shards failed" reported with a 500 and no status is still about shards, not the query.
    expect(classifyEngineFailure({ ...engineFailureOf(allShardsEmpty)!, status: 500 }, "request")).toBe("ENGINE_UNAVAILABLE");
    expect(classifyEngineFailure(failure({ status: 429, type: "circuit_breaking_exception" }), "request")).toBe("ENGINE_UNAVAILABLE");
    expect(classifyEngineFailure(failure({ status: 503, type: "unavailable_shards_exception" }), "document")).toBe("ENGINE_UNAVAILABLE");
    expect(classifyEngineFailure(failure({ status: 504 }), "request")).toBe("ENGINE_UNAVAILABLE");
  });

  it("calls a query the engine cannot run an engine error, not a retryable one", () => {
    expect(classifyEngineFailure(engineFailureOf(badQuery)!, "request")).toBe("ENGINE_ERROR");
  });

  it("calls a 400 refusing a document INVALID_INPUT, and the same refusing a request of ours ENGINE_ERROR", () => {
    const typeConflict = failure({ status: 400, type: "document_parsing_exception", reason: "[1:22] failed to parse field [fields.a] of type [long]" });
    expect(classifyEngineFailure(typeConflict, "document")).toBe("INVALID_INPUT");
    expect(classifyEngineFailure(failure({ status: 400, type: "illegal_argument_exception", reason: "Limit of total fields [1000] has been exceeded" }), "document")).toBe("INVALID_INPUT");
    expect(classifyEngineFailure(typeConflict, "request")).toBe("ENGINE_ERROR");
    expect(classifyEngineFailure(failure({ status: 409, type: "version_conflict_engine_exception" }), "document")).toBe("CONFLICT");
    expect(classifyEngineFailure(failure({ status: 404, type: "index_not_found_exception" }), "request")).toBe("NOT_FOUND");
    expect(classifyEngineFailure(failure({ status: 403, type: "security_exception" }), "document")).toBe("ENGINE_ERROR");
    expect(classifyEngineFailure(failure({ status: 500, type: "null_pointer_exception" }), "document")).toBe("ENGINE_ERROR");
  });
});

describe("cluster blocks (audit 22b)", () => {
  const block = (status: number, level: string) => ({
    error: { root_cause: [{ type: "cluster_block_exception", reason: `index [i] blocked by: [${level}];` }], type: "cluster_block_exception", reason: `index [i] blocked by: [${level}];` },
    status,
  });
  const readOnly = block(403, "FORBIDDEN/5/index read-only (api)");
  const floodStage = block(429, "TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block");
  const noMaster = block(503, "SERVICE_UNAVAILABLE/2/no cluster-manager");

  it("calls a block an operator set an engine error, and only a block that says 'not now' unavailable", () => {
    expect(classifyEngineFailure(engineFailureOf(readOnly)!, "request")).toBe("ENGINE_ERROR");
    expect(classifyEngineFailure(engineFailureOf(readOnly)!, "document")).toBe("ENGINE_ERROR");
    expect(classifyEngineFailure(engineFailureOf(floodStage)!, "document")).toBe("ENGINE_UNAVAILABLE");
    expect(classifyEngineFailure(engineFailureOf(noMaster)!, "request")).toBe("ENGINE_UNAVAILABLE");
    // Without its status (a bulk item's error read alone), the block's own level says it.
    expect(classifyEngineFailure({ ...engineFailureOf(noMaster)!, status: undefined }, "request")).toBe("ENGINE_UNAVAILABLE");
    expect(classifyEngineFailure({ ...engineFailureOf(readOnly)!, status: undefined }, "request")).toBe("ENGINE_ERROR");
  });

  it("names the block, not the credentials, and tells an index block from a cluster that is not ready", () => {
    const base = "http://127.0.0.1:9200";
    const ro = toEngineError({ name: "ResponseError", meta: { statusCode: 403, body: readOnly } }, "opensearch", "put mapping i", base);
    expect(ro).toMatchObject({ code: "ENGINE_ERROR", details: { status: 403, engineErrorType: "cluster_block_exception" } });
    expect(ro.message).toBe("put mapping i: opensearch at http://127.0.0.1:9200 refused it: the index is blocked (cluster_block_exception: index [i] blocked by: [FORBIDDEN/5/index read-only (api)];)");
    expect(isIndexBlock(ro)).toBe(true);
    expect(isIndexBlock(toEngineError({ name: "ResponseError", meta: { statusCode: 429, body: floodStage } }, "opensearch", "put mapping i", base))).toBe(true);
    const down = toEngineError({ name: "ResponseError", meta: { statusCode: 503, body: noMaster } }, "opensearch", "put mapping i", base);
    expect(down.code).toBe("ENGINE_UNAVAILABLE");
    expect(isIndexBlock(down)).toBe(false);
  });
});

describe("toEngineError uses the same classification", () => {
  const base = "http://127.0.0.1:9200";
  it("answers 'all shards failed' while shards recover with ENGINE_UNAVAILABLE, even as HTTP 500", () => {
    const err = toEngineError({ name: "ResponseError", meta: { statusCode: 500, body: allShardsRecovering } }, "opensearch", "search i", base);
    expect(err.code).toBe("ENGINE_UNAVAILABLE");
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/overloaded or not ready \(search_phase_execution_exception: all shards failed/);
  });
  it("keeps a query refusal a 502", () => {
    expect(toEngineError({ name: "ResponseError", meta: { statusCode: 400, body: badQuery } }, "opensearch", "search i", base).code).toBe("ENGINE_ERROR");
  });
});

describe("toMsearchResults", () => {
  it("keeps each failed entry's status and type: a 429 entry is ENGINE_UNAVAILABLE", () => {
    const ok = { took: 1, hits: { total: { value: 0, relation: "eq" }, hits: [] } };
    const [first, second, third] = toMsearchResults({ responses: [ok, rejected, badQuery] });
    expect(first).toBe(ok);
    expect(second).toBeInstanceOf(NeardupError);
    expect(second).toMatchObject({ code: "ENGINE_UNAVAILABLE", details: { status: 429, engineErrorType: "es_rejected_execution_exception" } });
    expect((second as Error).message).toBe("search 2 of 3: es_rejected_execution_exception: rejected execution of coordinating operation");
    expect(third).toMatchObject({ code: "ENGINE_ERROR", details: { status: 400, engineErrorType: "search_phase_execution_exception" } });
  });
});

describe("toSourceMap", () => {
  it("leaves out missing docs (a missing index too) and throws for a doc whose shard is not available", () => {
    const docs = [
      { _id: "a", found: true, _source: { text: "x" } },
      { _id: "b", found: false },
      { _id: "c", error: { type: "index_not_found_exception", reason: "no such index [i]" } },
    ];
    expect([...toSourceMap(docs).keys()]).toEqual(["a"]);
    const unavailable = { _id: "d", error: { root_cause: [{ type: "no_shard_available_action_exception", reason: "No shard available" }], type: "no_shard_available_action_exception", reason: "No shard available" } };
    expect(() => toSourceMap([...docs, unavailable])).toThrow(expect.objectContaining({ code: "ENGINE_UNAVAILABLE" }));
  });
});

describe("bulkItemError", () => {
  const bulk = toBulkResult({
    errors: true,
    items: [
      { index: { _id: "ok", status: 201 } },
      {
        index: {
          _id: "conflict",
          status: 400,
          error: { type: "document_parsing_exception", reason: "[1:22] failed to parse field [fields.a.b] of type [long] in document with id 'conflict'", caused_by: { type: "illegal_argument_exception", reason: "Cannot parse object as number" } },
        },
      },
      { index: { _id: "limit", status: 400, error: { type: "illegal_argument_exception", reason: "Limit of total fields [1000] has been exceeded" } } },
      { index: { _id: "busy", status: 429, error: { type: "es_rejected_execution_exception", reason: "rejected execution of primary operation" } } },
      { index: { _id: "text", status: 400, error: { type: "mapper_parsing_exception", reason: "failed to parse field [body] of type [integer]" } } },
    ],
  });

  it("keeps the causes of an item", () => {
    expect(bulk.items[1]!.error!.causes).toEqual(["illegal_argument_exception"]);
  });

  it("is a 400 naming the part of fields the engine refused, under the item's label", () => {
    const err = bulkItemError(bulk.items[1]!, "conflict", "items[1]");
    expect(err).toMatchObject({ code: "INVALID_INPUT", field: "items[1].fields.a.b", details: { status: 400, engineErrorType: "document_parsing_exception" } });
    expect(err.message).toMatch(/^the engine refused document "conflict": document_parsing_exception: \[1:22\] failed to parse field \[fields\.a\.b\]/);
    expect(bulkItemError(bulk.items[1]!, "conflict", "body").field).toBe("fields.a.b");
    expect(bulkItemError(bulk.items[2]!, "limit", "items[2]").field).toBe("items[2].fields");
    expect(bulkItemError(bulk.items[4]!, "text", "items[4]")).toMatchObject({ code: "INVALID_INPUT", field: "items[4]" });
  });

  it("blames the index, not the client, when the engine refuses neardup's own fields", () => {
    const item = { action: "index", id: "x", status: 400, error: { type: "mapper_parsing_exception", reason: "failed to parse field [neardup.distance] of type [date]" } };
    expect(bulkItemError(item, "x", "items[0]")).toMatchObject({ code: "ENGINE_ERROR", field: "items[0]" });
  });

  it("is a retryable ENGINE_UNAVAILABLE for an overloaded shard", () => {
    const err = bulkItemError(bulk.items[3]!, "busy", "items[3]");
    expect(err).toMatchObject({ code: "ENGINE_UNAVAILABLE", field: "items[3]" });
    expect(err.status).toBe(503);
    expect(err.message).toMatch(/could not store document "busy"/);
  });
});
