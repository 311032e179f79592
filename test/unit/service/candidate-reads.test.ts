/**
 * Candidate reads take ids from `neardup.id` doc values (contract v4) and skip
 * stored fields only while no document of the window lacks the field; a hit
 * without it sends the read back to `_id` and is still found under its id.
 */
import { describe, expect, it } from "vitest";
import type { Analysis } from "../../../src/core/fingerprinter.js";
import { segments, toHex, type Fingerprint } from "../../../src/core/fingerprint.js";
import type { Engine, SearchRequest } from "../../../src/engine/types.js";
import { fetchCandidates, DocValueReads, type Lookup } from "../../../src/service/candidates/index.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

const WINDOW = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 11, 3);
const fp: Fingerprint = { hi: 0x01234567, lo: 0x89abcdef };

function doc(id: string | undefined, time: number, lsh: string[]): Record<string, unknown> {
  const [seg0, seg1, seg2, seg3] = segments(fp);
  const neardup: Record<string, unknown> = { simhash: toHex(fp), seg0, seg1, seg2, seg3, lsh, status: "original", length: 10, version: "nd1", timestamp: new Date(time).toISOString() };
  if (id !== undefined) Object.assign(neardup, { id, lsh_list: Buffer.from(lsh.join(" ")).toString("base64") }); // a v4 document
  return { text: "t", neardup };
}

async function engineWith(docs: [string, Record<string, unknown>][]): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.createIndex("ids");
  await engine.bulk(docs.flatMap(([id, source]) => [{ index: { _index: "ids", _id: id } }, source]));
  await engine.refresh("ids");
  return engine;
}

/** Records the bodies of candidate searches. */
function recording(engine: Engine): { engine: Engine; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  const wrapped = Object.create(engine) as Engine;
  wrapped.search = (r: SearchRequest) => (bodies.push(r.body as Record<string, unknown>), engine.search(r));
  wrapped.msearch = (rs: SearchRequest[]) => (bodies.push(...rs.map((r) => r.body as Record<string, unknown>)), engine.msearch(rs));
  return { engine: wrapped, bodies };
}

const lookup = (lsh: string[]): Lookup => ({ analysis: { simhash: { hi: ~fp.hi >>> 0, lo: ~fp.lo >>> 0 }, lsh, version: "nd1" } as unknown as Analysis, time: NOW, excludeId: undefined, radius: 3 });
const source = (docValueReads: DocValueReads) => ({ index: "ids", textField: "text", windowMs: WINDOW, maxCandidates: 100, docValueReads });

describe("DocValueReads", () => {
  it("reads `_id` until a probe finds every document of the window with neardup.id; documents older than the window do not count", async () => {
    const engine = await engineWith([
      ["a", doc("a", NOW - 1000, ["00:aa"])],
      ["old", doc(undefined, NOW - 2 * WINDOW, ["00:aa"])],
    ]);
    const reads = new DocValueReads(engine, "ids", WINDOW, 60_000, () => NOW);
    expect(reads.fromDocValues()).toBe(false); // not probed yet: starts a probe, does not wait for it
    await reads.probe();
    expect(reads.fromDocValues()).toBe(true);
  });

  it("stays on `_id` while a document of the window lacks neardup.id, and after a hit without it until the next probe", async () => {
    const engine = await engineWith([
      ["a", doc("a", NOW - 1000, ["00:aa"])],
      ["legacy", doc(undefined, NOW - 1000, ["00:aa"])],
    ]);
    let now = NOW;
    const reads = new DocValueReads(engine, "ids", WINDOW, 60_000, () => now);
    await reads.probe();
    expect(reads.fromDocValues()).toBe(false);
    await engine.bulk([{ delete: { _index: "ids", _id: "legacy" } }]);
    await engine.refresh("ids");
    await reads.probe();
    expect(reads.fromDocValues()).toBe(true);
    reads.olderSeen();
    expect(reads.fromDocValues()).toBe(false); // no probe within the TTL
    now += 60_000;
    reads.fromDocValues(); // stale: a probe starts
    await reads.probe();
    expect(reads.fromDocValues()).toBe(true);
  });

  it("a probe that started before a hit without neardup.id was seen does not switch reads to doc values", async () => {
    const engine = await engineWith([["a", doc("a", NOW - 1000, ["00:aa"])]]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = Object.create(engine) as Engine;
    slow.search = async (r: SearchRequest) => (await gate, engine.search(r));
    const reads = new DocValueReads(slow, "ids", WINDOW, 60_000, () => NOW);
    const probing = reads.probe();
    reads.olderSeen();
    release();
    await probing;
    expect(reads.fromDocValues()).toBe(false);
  });

  it("reads no stored field once the probe allows it, and finds a document written without neardup.id afterwards under its `_id`", async () => {
    const memory = await engineWith([["a", doc("a", NOW - 1000, ["00:aa"])]]);
    const { engine, bodies } = recording(memory);
    const reads = new DocValueReads(memory, "ids", WINDOW, 60_000, () => NOW);
    await reads.probe();
    expect(reads.fromDocValues()).toBe(true);
    const [first] = await fetchCandidates(engine, source(reads), [lookup(["00:aa"])]);
    expect(first!.candidates.map((c) => c.id)).toEqual(["a"]);
    expect(bodies.at(-1)).toMatchObject({ stored_fields: "_none_" });
    // An older sidecar writes a document without neardup.id: single and grouped lookups still name it, and reads go back to `_id`.
    await memory.bulk([{ index: { _index: "ids", _id: "legacy" } }, doc(undefined, NOW - 500, ["00:aa"])]);
    await memory.refresh("ids");
    const [single] = await fetchCandidates(engine, source(reads), [lookup(["00:aa"])]);
    expect(single!.candidates.map((c) => c.id).sort()).toEqual(["a", "legacy"]);
    expect(reads.fromDocValues()).toBe(false);
    expect(bodies.at(-1)!.stored_fields).toBeUndefined();
    await reads.probe(); // the legacy document is in the window: still `_id`
    expect(reads.fromDocValues()).toBe(false);
    const grouped = await fetchCandidates(engine, source(reads), [lookup(["00:aa"]), lookup(["00:aa", "01:bb"])]);
    for (const r of grouped) expect(r.candidates.map((c) => c.id).sort()).toEqual(["a", "legacy"]);
  });

  it("counts a document with neardup.id but no neardup.lsh_list as written before v4: the probe keeps `_id`, a hit of it reads again", async () => {
    const partial = doc("half", NOW - 1000, ["00:aa"]);
    delete (partial.neardup as Record<string, unknown>).lsh_list;
    const engine = await engineWith([["half", partial]]);
    const reads = new DocValueReads(engine, "ids", WINDOW, 60_000, () => NOW);
    await reads.probe();
    expect(reads.fromDocValues()).toBe(false);
    const v4 = await engineWith([["a", doc("a", NOW - 1000, ["00:aa"])]]);
    const readsV4 = new DocValueReads(v4, "ids", WINDOW, 60_000, () => NOW);
    await readsV4.probe();
    await v4.bulk([{ index: { _index: "ids", _id: "half" } }, partial]);
    await v4.refresh("ids");
    const [r] = await fetchCandidates(v4, source(readsV4), [lookup(["00:aa"])]);
    expect(r!.candidates.map((c) => [c.id, c.lsh])).toEqual([
      ["a", ["00:aa"]],
      ["half", ["00:aa"]],
    ]);
    expect(readsV4.fromDocValues()).toBe(false);
  });

  it("reads the band keys of a v4 document from neardup.lsh_list, empty lists included", async () => {
    const memory = await engineWith([
      ["a", doc("a", NOW - 1000, ["00:aa", "01:bb"])],
      ["none", { ...doc("none", NOW - 1000, []), neardup: { ...(doc("none", NOW - 1000, []).neardup as object), lsh: undefined } }],
    ]);
    const { engine, bodies } = recording(memory);
    const reads = new DocValueReads(memory, "ids", WINDOW, 60_000, () => NOW);
    await reads.probe();
    expect(reads.fromDocValues()).toBe(true);
    const [r] = await fetchCandidates(engine, source(reads), [lookup(["01:bb"])]);
    expect(r!.candidates.map((c) => [c.id, c.lsh])).toEqual([["a", ["00:aa", "01:bb"]]]);
    expect((bodies.at(-1)!.docvalue_fields as unknown[]).includes("neardup.lsh")).toBe(false);
    expect((bodies.at(-1)!.docvalue_fields as unknown[]).includes("neardup.lsh_list")).toBe(true);
  });

  it("falls back from a grouped read without stored fields when a hit lacks neardup.id", async () => {
    const memory = await engineWith([["a", doc("a", NOW - 1000, ["00:aa"])]]);
    const { engine, bodies } = recording(memory);
    const reads = new DocValueReads(memory, "ids", WINDOW, 60_000, () => NOW);
    await reads.probe();
    await memory.bulk([{ index: { _index: "ids", _id: "legacy" } }, doc(undefined, NOW - 500, ["01:bb"])]);
    await memory.refresh("ids");
    const grouped = await fetchCandidates(engine, source(reads), [lookup(["00:aa"]), lookup(["01:bb"])]);
    expect(grouped.map((r) => r.candidates.map((c) => c.id))).toEqual([["a"], ["legacy"]]);
    expect(bodies.some((b) => b.stored_fields === "_none_")).toBe(true);
    expect(bodies.at(-1)!.stored_fields).toBeUndefined();
  });
});
