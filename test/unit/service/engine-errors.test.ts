/**
 * Issue 11: an engine failure keeps its meaning through the service. A 429
 * inside `_msearch` is a retryable 503 (it was a 502 without Retry-After), a
 * search that saw only some shards is not taken for "no candidates", and one
 * refused `_bulk` item fails only itself. An engine test double stands in for
 * the engine; the responses are the engines' own shapes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import type { Engine, SearchRequest, SearchResponse } from "../../../src/engine/index.js";
import { toBulkResult, toMsearchResults } from "../../../src/engine/responses.js";
import { DedupService, type IndexResult } from "../../../src/service/dedup-service.js";
import { fetchCandidates, type Lookup } from "../../../src/service/candidates/index.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";

const empty: SearchResponse<unknown> = { took: 1, hits: { total: { value: 0, relation: "eq" }, hits: [] } };
const rejected = { error: { root_cause: [{ type: "es_rejected_execution_exception", reason: "rejected execution of search" }], type: "es_rejected_execution_exception", reason: "rejected execution of search" }, status: 429 };

/** An engine double: searches answer `search`/`msearch`, bulks answer `bulkItems` (one raw item per write). */
function fakeEngine(answers: { msearch?: (n: number) => unknown[]; search?: () => SearchResponse<unknown>; bulkItems?: (ids: string[]) => Record<string, unknown>[] }): Engine {
  const engine: Partial<Engine> = {
    kind: "opensearch",
    info: { kind: "opensearch", version: "2.19.6", major: 2, clusterName: "fake" },
    msearch: async <T>(requests: SearchRequest[]) => toMsearchResults<T>({ responses: answers.msearch?.(requests.length) ?? requests.map(() => empty) }),
    search: async <T>() => (answers.search?.() ?? empty) as SearchResponse<T>,
    mget: async <T>() => new Map<string, T>(),
    mapsField: async () => true,
    bulk: async (operations) => {
      const ids = operations.filter((_, i) => i % 2 === 0).map((o) => (o as { index: { _id: string } }).index._id);
      return toBulkResult({ errors: true, items: answers.bulkItems?.(ids) ?? ids.map((id) => ({ index: { _id: id, status: 201 } })) } as never);
    },
  };
  return engine as Engine;
}

let fingerprinter: Fingerprinter;
beforeAll(async () => {
  fingerprinter = await createFingerprinter();
});

const TEXTS = [
  "The harbour ferry to the northern islands leaves at seven every morning from pier four.",
  "Quarterly revenue of the bakery chain rose on strong demand for sourdough and rye loaves.",
  "A new species of beetle was described from leaf litter collected in the cloud forest last spring.",
];

function lookups(n: number): Lookup[] {
  return TEXTS.slice(0, n).map((t) => ({ analysis: fingerprinter.analyze(t, "text"), time: Date.now(), excludeId: undefined, radius: 3 }));
}

const source = { index: "i", textField: "text", windowMs: 172_800_000, maxCandidates: 100 };

describe("candidate searches keep the engine's error class", () => {
  it("a 429 inside _msearch is ENGINE_UNAVAILABLE (503, retryable), naming the engine's type", async () => {
    const engine = fakeEngine({ msearch: (n) => Array.from({ length: n }, () => rejected) });
    const err = await fetchCandidates(engine, source, lookups(3)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeardupError);
    expect(err).toMatchObject({ code: "ENGINE_UNAVAILABLE", details: { status: 429, engineErrorType: "es_rejected_execution_exception" } });
    expect((err as NeardupError).status).toBe(503);
    expect((err as Error).message).toMatch(/^candidate search failed: search 1 of 1: es_rejected_execution_exception/);
  });

  it("a search that saw only some shards is an error, not 'no candidates'", async () => {
    const partial = { ...empty, _shards: { total: 2, successful: 1, failed: 1, failures: [{ reason: { type: "no_shard_available_action_exception", reason: null } }] } };
    const engine = fakeEngine({ search: () => partial });
    const err = await fetchCandidates(engine, source, lookups(1)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect((err as Error).message).toBe("candidate search failed: 1 of 2 shards failed (no_shard_available_action_exception)");
  });

  it("asks again when a shard vanished mid-search (an index deleted between the query and fetch phases)", async () => {
    const gone = { ...empty, _shards: { total: 3, successful: 2, failed: 1, failures: [{ reason: { type: "search_context_missing_exception", reason: "No search context found for id [7]" } }] } };
    let calls = 0;
    const engine = fakeEngine({ search: () => (++calls === 1 ? gone : empty) });
    const [result] = await fetchCandidates(engine, source, lookups(1));
    expect(result).toMatchObject({ candidates: [], cut: false });
    expect(calls).toBe(2);
  });
});

describe("DedupService.index with refused bulk items", () => {
  it("fails only the refused items: 400 naming the field for a document the engine refuses, 503 for an overloaded shard", async () => {
    const engine = fakeEngine({
      bulkItems: (ids) =>
        ids.map((id) =>
          id === "bad"
            ? { index: { _id: id, status: 400, error: { type: "mapper_parsing_exception", reason: "failed to parse field [fields.n] of type [long] in document with id 'bad'" } } }
            : id === "busy"
              ? { index: { _id: id, status: 429, error: { type: "es_rejected_execution_exception", reason: "rejected execution of primary operation" } } }
              : { index: { _id: id, status: 201 } },
        ),
    });
    const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: "i" }));
    const docs = [
      parseDocInput({ id: "good", text: TEXTS[0] }, "items[0]"),
      parseDocInput({ id: "bad", text: TEXTS[1], fields: { n: "x" } }, "items[1]"),
      parseDocInput({ id: "busy", text: TEXTS[2] }, "items[2]"),
    ];
    const [good, bad, busy] = await service.index(docs, "mark", ["items[0]", "items[1]", "items[2]"]);
    expect((good as IndexResult).action).toBe("indexed");
    expect(bad).toMatchObject({ code: "INVALID_INPUT", field: "items[1].fields.n" });
    expect((bad as NeardupError).status).toBe(400);
    expect(busy).toMatchObject({ code: "ENGINE_UNAVAILABLE", field: "items[2]" });
  });
});

describe("a fault inside neardup while writing", () => {
  it("is a 500 INTERNAL per document and logged, not a retryable 503 that clients would send for ever", async () => {
    const engine = fakeEngine({});
    engine.bulk = () => Promise.reject(new TypeError("cannot read properties of undefined (reading 'x')"));
    const logged: object[] = [];
    const log = { warn: () => undefined, error: (details: object) => void logged.push(details) };
    const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: "i" }), undefined, log);
    const results = await service.index([parseDocInput({ id: "a", text: TEXTS[0] }, "items[0]"), parseDocInput({ id: "b", text: TEXTS[1] }, "items[1]")], "mark", ["items[0]", "items[1]"]);
    for (const r of results) {
      expect(r).toMatchObject({ code: "INTERNAL" });
      expect((r as NeardupError).status).toBe(500);
    }
    expect(logged).toHaveLength(1);
    expect((logged[0] as { err: Error }).err).toBeInstanceOf(TypeError);
  });
});
