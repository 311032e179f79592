/**
 * A write's lookup wants only the earliest duplicate: `fillTexts` compares
 * the sketches oldest first and stops there, leaving the later candidates
 * `unread`; a decision that gets past that one after all (its id was sent
 * again with another text) reads the texts it needs then (`readText`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadPoems } from "../../../bench/poems.js";
import type { Fingerprinter } from "../../../src/core/index.js";
import { sketchOf } from "../../../src/core/sketch.js";
import { fetchCandidates, type Lookup } from "../../../src/service/candidates/index.js";
import type { Candidate } from "../../../src/service/candidate.js";
import { neardupSource } from "../../../src/service/documents.js";
import { compareCandidates } from "../../../src/service/rank.js";
import { sharedFingerprinter } from "../../helpers/api.js";
import { editOnlyPairs } from "../../helpers/edit-pairs.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

const WINDOW = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 11, 4);

let fp: Fingerprinter;
let base: string;
beforeAll(async () => {
  fp = await sharedFingerprinter();
  base = loadPoems(1).slice(0, 3).join("");
});

/** An index holding the original `o` and its reposts `c1`..`c4`, in that time order. */
async function clusterIndex(): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.createIndex("cluster");
  const docs: [string, string, number, string | undefined][] = [
    ["o", base, NOW - 10_000, undefined],
    ...[1, 2, 3, 4].map((k): [string, string, number, string | undefined] => [`c${k}`, `${base}#转${k}`, NOW - 10_000 + k * 1000, "o"]),
  ];
  await engine.bulk(
    docs.flatMap(([id, text, time, of]) => [
      { index: { _index: "cluster", _id: id } },
      { text, neardup: neardupSource(fp.analyze(text), of ? { status: "duplicate", duplicateOf: of, distance: 1, similarity: 0.99, reason: "simhash" } : { status: "original" }, time, id) },
    ]),
  );
  await engine.refresh("cluster");
  return engine;
}

const source = () => ({ index: "cluster", textField: "text", windowMs: WINDOW, maxCandidates: 100, verdict: fp.verdictOptions });
const lookup = (extra: Partial<Lookup> = {}): Lookup => ({ analysis: fp.analyze(`${base}#新`), time: NOW, excludeId: undefined, radius: 3, ...extra });

describe("a write's lookup stops comparing at the earliest duplicate", () => {
  it("compares the oldest candidate and leaves the later ones unread; a check compares them all", async () => {
    const engine = await clusterIndex();
    const [write] = await fetchCandidates(engine, source(), [lookup({ untilDuplicate: true })]);
    const byId = new Map(write!.candidates.map((c) => [c.id, c]));
    expect([...byId.keys()].sort()).toEqual(["c1", "c2", "c3", "c4", "o"]);
    expect(byId.get("o")!.verdict?.verdict.duplicate).toBe(true);
    for (const id of ["c1", "c2", "c3", "c4"]) expect({ id, unread: byId.get(id)!.unread, verdict: byId.get(id)!.verdict }).toEqual({ id, unread: true, verdict: undefined });

    const [check] = await fetchCandidates(engine, source(), [lookup()]);
    for (const c of check!.candidates) expect({ id: c.id, unread: c.unread, duplicate: c.verdict?.verdict.duplicate }).toEqual({ id: c.id, unread: undefined, duplicate: true });
  });

  it("does not stop at a duplicate of the document itself (an update of the original leaves them out)", async () => {
    const engine = await clusterIndex();
    const [write] = await fetchCandidates(engine, source(), [lookup({ untilDuplicate: true, excludeId: "o" })]);
    expect(write!.candidates.map((c) => c.id).sort()).toEqual(["c1", "c2", "c3", "c4"]);
    for (const c of write!.candidates) expect({ id: c.id, unread: c.unread, compared: c.verdict !== undefined }).toEqual({ id: c.id, unread: undefined, compared: true });
  });
});

describe("a decision that reaches an unread candidate", () => {
  it("reads its text when the edit rule needs it, and finds the duplicate", async () => {
    const pairs = editOnlyPairs(fp, 1);
    expect(pairs).toHaveLength(1);
    const { a, b } = pairs[0]!;
    const A = fp.analyze(a);
    const query = fp.analyze(b);
    const candidate = (): Candidate => ({ id: "y", simhash: A.simhash, lsh: A.lsh, lshScheme: A.lshScheme, time: NOW - 1000, status: "original", duplicateOf: undefined, sketch: sketchOf(A), unread: true });
    expect(candidate().sketch!.text).toBeUndefined(); // too long to carry its text
    const reads: string[] = [];
    const readText = async (c: Candidate) => {
      reads.push(c.id);
      c.sketch = { ...c.sketch!, text: A.normalized };
    };
    const found = await compareCandidates(fp, query, [candidate()], 3, { untilDuplicate: true, readText });
    expect(reads).toEqual(["y"]);
    expect(found.map((m) => [m.candidate.id, m.verdict.duplicate, m.verdict.rule])).toEqual([["y", true, "medium.edit"]]);
    // Without a way to read it, the pair cannot be decided: it is no match (what a gone document gives).
    expect(await compareCandidates(fp, query, [candidate()], 3, { untilDuplicate: true })).toEqual([]);
  });
});
