import { describe, expect, it } from "vitest";
import { msearchLines, toAliasedIndices, toAliasNames, toWriteAliases } from "../../../src/engine/responses.js";
import type { BulkResult, Engine } from "../../../src/engine/types.js";
import { isMissingTarget, writeDocuments } from "../../../src/service/documents.js";

describe("writeDocuments", () => {
  it("writes the items refused for a missing target once more, after recreating it, through the alias with require_alias", async () => {
    const calls: Record<string, unknown>[][] = [];
    let recreated = 0;
    const answers: BulkResult[] = [
      {
        errors: true,
        items: [
          { action: "index", id: "a", status: 201 },
          { action: "index", id: "b", status: 404, error: { type: "index_not_found_exception", reason: "no such index [w]" } },
          { action: "index", id: "c", status: 400, error: { type: "mapper_parsing_exception", reason: "bad" } },
        ],
      },
      { errors: false, items: [{ action: "index", id: "b", status: 201 }] },
    ];
    const engine = { bulk: async (ops: Record<string, unknown>[]) => (calls.push(ops), answers.shift()!) } as unknown as Engine;
    const writes = ["a", "b", "c"].map((id) => ({ id, source: { text: id } }));
    const result = await writeDocuments(engine, { index: "w", rollover: true }, writes, async () => void recreated++);
    expect(recreated).toBe(1);
    expect(calls[0]![0]).toEqual({ index: { _index: "w", _id: "a", require_alias: true } });
    expect(calls[1]).toEqual([{ index: { _index: "w", _id: "b", require_alias: true } }, { text: "b" }]);
    expect(result.items.map((i) => i.status)).toEqual([201, 201, 400]);
    expect(result.errors).toBe(true);
  });

  it("knows a missing target: no index, or an alias left without a write index", () => {
    expect(isMissingTarget({ type: "index_not_found_exception", reason: "x" })).toBe(true);
    expect(isMissingTarget({ type: "illegal_argument_exception", reason: "no write index is defined for alias [w]" })).toBe(true);
    expect(isMissingTarget({ type: "illegal_argument_exception", reason: "something else" })).toBe(false);
    expect(isMissingTarget(undefined)).toBe(false);
  });
});

describe("engine responses", () => {
  it("reads the indices behind an alias, the write index marked", () => {
    expect(toAliasedIndices({ "w-000002": { aliases: { w: { is_write_index: true } } }, "w-000001": { aliases: { w: { is_write_index: false } } } }, "w")).toEqual([
      { index: "w-000001", writeIndex: false },
      { index: "w-000002", writeIndex: true },
    ]);
    expect(toAliasedIndices({ only: { aliases: { w: {} } } }, "w")).toEqual([{ index: "only", writeIndex: true }]);
  });

  it("reads the aliases that write to an index as its write index and read all of it, and every alias of an answer", () => {
    const own = { "w-2": { aliases: { w: { is_write_index: true }, old: { is_write_index: false }, solo: {} } } };
    expect(toWriteAliases(own, "w-2")).toEqual(["w"]);
    // Asked with an alias's name, the engine answers its indices: none is the name itself.
    expect(toWriteAliases({ "w-2": { aliases: { w: { is_write_index: true } } } }, "w")).toEqual([]);
    expect(toWriteAliases({ "w-2": { aliases: {} } }, "w-2")).toEqual([]);
    // A filtered or routed alias reads part of the index: its lookups would miss the rest.
    expect(toWriteAliases({ "w-2": { aliases: { app: { is_write_index: true, filter: { term: { app: "a" } } }, r: { is_write_index: true, index_routing: "1", search_routing: "1" } } } }, "w-2")).toEqual([]);
    expect(toAliasNames({ "w-1": { aliases: { w: {}, r: {} } }, "w-2": { aliases: { w: { is_write_index: true } } }, "x": {} })).toEqual(["r", "w"]);
  });

  it("puts ignore_unavailable in the msearch header when asked", () => {
    expect(msearchLines([{ index: "w", body: {}, ignoreUnavailable: true }])[0]).toEqual({ index: "w", ignore_unavailable: true, allow_no_indices: true });
  });
});
