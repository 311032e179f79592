/**
 * Lookups that only decide leave out what no verdict rule can call their
 * duplicate by length (core length-bounds.ts): the engine query, the grouped
 * query and the reach rule (which the recent-writes window uses) agree.
 */
import { describe, expect, it } from "vitest";
import { fromHex, hex4, segmentValues } from "../../../src/core/fingerprint.js";
import { candidateLengths, twoKeyLengths } from "../../../src/core/length-bounds.js";
import { encodeSketch } from "../../../src/core/sketch.js";
import { DEFAULT_VERDICT_OPTIONS } from "../../../src/core/verdict.js";
import { fetchCandidates, lookupProbe, reaches, type Lookup } from "../../../src/service/candidates/index.js";
import type { Analysis } from "../../../src/core/fingerprinter.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { recordingGroupedHits } from "../../helpers/grouped-hits.js";
import { loadPoems } from "../../../bench/poems.js";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import { sharedSegments } from "../../../src/service/candidates/query.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";

const KEY = "00:00000001";
const QUERY = "1111222233334444";

function stored(id: string, simhash: string, length: number, lsh = [KEY, `01:${id}`]) {
  const [seg0, seg1, seg2, seg3] = segmentValues(fromHex(simhash)).map(hex4);
  const sketch = encodeSketch({ length, hashes: new Uint32Array(0), weights: new Float32Array(0) });
  return [
    { index: { _index: "lengths", _id: id } },
    { text: id, neardup: { id, simhash, seg0, seg1, seg2, seg3, lsh, lsh_list: Buffer.from(lsh.join(" ")).toString("base64"), lsh_scheme: "lsh2-16x3", status: "original", length, version: "nd1", timestamp: new Date(1_000_000).toISOString(), sketch } },
  ];
}

async function window(): Promise<MemoryEngine> {
  const engine = new MemoryEngine();
  await engine.createIndex("lengths");
  await engine.bulk([
    ...stored("like", "aaaabbbbccccdddd", 290), // within 0.85 of 300: the edit rule may hold
    ...stored("short", "aaaabbbbccccddde", 120), // the short bucket's cosine rule holds at any ratio
    ...stored("long", "aaaabbbbccccdddf", 900), // medium bucket, 1/3 of the length: no rule can hold
    ...stored("long-seg", "1111bbbbccccdddd", 900), // as long, but shares a segment: the simhash rule may hold
    ...stored("tiny", "aaaabbbbcccc0000", 20), // tiny bucket, 20 / 300: no rule can hold
  ]);
  await engine.refresh("lengths");
  return engine;
}

function lookup(length: number, lengths = candidateLengths(DEFAULT_VERDICT_OPTIONS, length), simhash = QUERY): Lookup {
  return { analysis: { simhash: fromHex(simhash), lsh: [KEY], length, version: "nd1", lshScheme: "lsh2-16x3" } as unknown as Analysis, time: 1_500_000, radius: 3, excludeId: undefined, lengths };
}

const ids = (r: { candidates: { id: string }[] }) => r.candidates.map((c) => c.id).sort();
const source = { index: "lengths", textField: "text", windowMs: 3_600_000, maxCandidates: 100 };

describe("lookups with length bounds", () => {
  it("read only documents of a length a rule allows, or sharing a segment, alone and grouped", async () => {
    const engine = await window();
    const { engine: recording, hits } = recordingGroupedHits(engine);
    const [alone] = await fetchCandidates(engine, source, [lookup(300)]);
    expect(ids(alone!)).toEqual(["like", "long-seg", "short"]);
    // Grouped with a lookup of another length (another bin): each keeps its own.
    const grouped = await fetchCandidates(recording, source, [lookup(300), lookup(1000, candidateLengths(DEFAULT_VERDICT_OPTIONS, 1000), "5555666677778888")]);
    expect(grouped.map(ids)).toEqual([
      ["like", "long-seg", "short"],
      ["long", "long-seg", "short"],
    ]);
    expect(hits).not.toContain("tiny"); // the engine left it out
    // Without bounds (a search that reports lesser similarities), every length.
    const [all] = await fetchCandidates(engine, source, [{ ...lookup(300), lengths: undefined }]);
    expect(ids(all!)).toEqual(["like", "long", "long-seg", "short", "tiny"]);
  });

  it("the reach rule the recent-writes window applies leaves out the same documents", () => {
    const l = lookup(300);
    const probe = lookupProbe(l.analysis, 3, undefined, l.lengths);
    const target = (simhash: string, length: number | undefined) => ({ simhash: fromHex(simhash), lsh: [KEY], lshScheme: "lsh2-16x3", sketch: length === undefined ? undefined : { length } });
    expect(reaches(probe, target("aaaabbbbccccdddd", 290))).toBe(true);
    expect(reaches(probe, target("aaaabbbbccccddde", 120))).toBe(true);
    expect(reaches(probe, target("aaaabbbbccccdddf", 900))).toBe(false);
    expect(reaches(probe, target("1111bbbbccccdddd", 900))).toBe(true);
    expect(reaches(probe, target("aaaabbbbcccc0000", 20))).toBe(false);
    // A document of unknown length (no sketch) is kept.
    expect(reaches(probe, target("aaaabbbbccccdddf", undefined))).toBe(true);
    // Within the radius, with two segments shared, length never matters.
    expect(reaches(probe, { ...target("1111222233334445", 5000) })).toBe(true);
  });
});

describe("lookups where only the containment rule reaches", () => {
  const SECOND = "02:00000002";
  async function contained(): Promise<MemoryEngine> {
    const engine = new MemoryEngine();
    await engine.createIndex("lengths");
    await engine.bulk([
      ...stored("edit-1", "aaaabbbbccccdddd", 290), // the edit rule may hold: one key is enough
      ...stored("contained-1", "aaaabbbbccccddde", 230, [KEY, "01:x"]), // only the containment rule reaches 230: one key is not enough
      ...stored("contained-2", "aaaabbbbccccdddf", 230, [KEY, SECOND]), // two keys
      ...stored("contained-seg", "1111bbbbccccdddd", 230, [KEY, "01:y"]), // a shared segment: length and keys do not matter
      ...stored("longer-2", "aaaabbbbcccc0000", 400, [KEY, SECOND]), // 400 of 300: the containment rule only, two keys
    ]);
    await engine.refresh("lengths");
    return engine;
  }
  const twoKeyLookup = (length: number, simhash = QUERY): Lookup => {
    const l = lookup(length, candidateLengths(DEFAULT_VERDICT_OPTIONS, length), simhash);
    return { ...l, analysis: { ...l.analysis, lsh: [KEY, SECOND] } as Analysis, twoKeyLengths: twoKeyLengths(DEFAULT_VERDICT_OPTIONS, length) };
  };

  it("take a document reached through band keys alone only when it shares two of them, alone and grouped; the reach rule agrees", async () => {
    const engine = await contained();
    // Every hit of the single lookup's searches.
    const hits: string[] = [];
    const recording = Object.create(engine) as MemoryEngine;
    recording.search = (async (request: Parameters<MemoryEngine["search"]>[0]) => {
      const response = await engine.search(request);
      hits.push(...response.hits.hits.map((h) => h._id!));
      return response;
    }) as MemoryEngine["search"];
    const want = ["contained-2", "contained-seg", "edit-1", "longer-2"];
    const [alone] = await fetchCandidates(recording, source, [twoKeyLookup(300)]);
    expect(ids(alone!)).toEqual(want);
    // The single lookup's query leaves it out in the engine.
    expect(hits).toContain("contained-2");
    expect(hits).not.toContain("contained-1");
    const grouped = await fetchCandidates(engine, source, [twoKeyLookup(300), twoKeyLookup(310, "5555666677778888")]);
    expect(ids(grouped[0]!)).toEqual(want);
    const l = twoKeyLookup(300);
    const probe = lookupProbe(l.analysis, 3, undefined, l.lengths, l.twoKeyLengths);
    const target = (simhash: string, length: number, lsh: string[]) => ({ simhash: fromHex(simhash), lsh, lshScheme: "lsh2-16x3", sketch: { length } });
    expect(reaches(probe, target("aaaabbbbccccddde", 230, [KEY, "01:x"]))).toBe(false);
    expect(reaches(probe, target("aaaabbbbccccdddf", 230, [KEY, SECOND]))).toBe(true);
    expect(reaches(probe, target("aaaabbbbccccdddd", 290, [KEY, "01:z"]))).toBe(true);
    expect(reaches(probe, target("1111bbbbccccdddd", 230, [KEY, "01:y"]))).toBe(true);
    // Without two-key lengths (before the rule), one key reached it.
    expect(reaches(lookupProbe(l.analysis, 3, undefined, l.lengths), target("aaaabbbbccccddde", 230, [KEY, "01:x"]))).toBe(true);
  });
});

describe("DedupService with length bounds", () => {
  it("a check leaves out a stored text that shares a band key but no rule can call a duplicate by length; a search for lesser similarities still reads it", async () => {
    const fp = await createFingerprinter();
    const poems = loadPoems(1);
    const stored = poems.slice(0, 6).join("").slice(0, 300);
    const a = fp.analyze(stored);
    // The stored text with other poems after it: shares a band key, no segment, and is over twice as long.
    let query: string | undefined;
    for (let k = 6; k < poems.length - 8 && query === undefined; k++) {
      const text = stored + poems.slice(k, k + 8).join("").slice(0, 500);
      const b = fp.analyze(text);
      if (b.lsh.some((key) => a.lsh.includes(key)) && sharedSegments(a.simhash, b.simhash) === 0) query = text;
    }
    expect(query).toBeDefined();
    const b = fp.analyze(query!);
    expect(candidateLengths(fp.verdictOptions, b.length)!.some(([lo, hi]) => a.length >= lo && a.length <= hi)).toBe(false);
    const engine = new MemoryEngine();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "bounds" }));
    await service.ensureIndex();
    const now = Date.now();
    await service.index([parseDocInput({ id: "a", text: stored, time: now - 1000 })], "mark");
    // From the recent-writes window, and from the engine once it shows the write.
    for (const when of ["window", "engine"]) {
      if (when === "engine") await engine.refresh("bounds");
      const check = await service.check(query!, { time: now });
      expect(check, when).toMatchObject({ status: "original", candidates: 0 });
      expect((await service.search({ text: query!, limit: 10 })).candidates).toBe(0);
      const wide = await service.search({ text: query!, minSimilarity: 0, limit: 10 });
      expect(wide.matches.map((m) => m.id)).toEqual(["a"]);
    }
  });
});
