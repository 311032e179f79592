/**
 * The edit rule on stored documents longer than the sketch's inline text
 * (300 code points): the lookup reads the candidate's own text field and
 * normalizes it, and documents written before 0.4 with `neardup.normalized`
 * are still read from it. A near-duplicate that only the edit rule catches
 * (simhash too far, cosine not used in the medium bucket) must be found by a
 * service whose recent-writes window never saw the original.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { neardupSource } from "../../src/service/documents.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { decodeSketch } from "../../src/core/sketch.js";
import { textFilterOf } from "../../src/core/text-filter.js";
import { editOnlyPairs, farPairs } from "../helpers/edit-pairs.js";
import { countingTextReads } from "../helpers/grouped-hits.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";

describe.each(engineTargets())("edit rule on long stored texts on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-edit-text");
  let pairs: { a: string; b: string }[];
  let far: { a: string; b: string };

  beforeAll(async () => {
    engine = await connectTarget(target);
    pairs = editOnlyPairs(await sharedFingerprinter(), 2);
    expect(pairs).toHaveLength(2);
    [far] = farPairs(await sharedFingerprinter(), 1, pairs.flatMap((p) => [p.a, p.b])) as [{ a: string; b: string }];
  }, 120_000);
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("reads the text field (not a stored copy) of a new document, and `neardup.normalized` of an old one", async () => {
    const options = resolveDedupOptions({ index, recentWindowMs: 1001 });
    const writer = new DedupService(engine, await sharedFingerprinter(), options);
    await writer.ensureIndex();
    const [written] = await writer.index([{ id: "new", idGiven: true, text: pairs[0]!.a, time: Date.now() - 5000, fields: undefined }], "mark");
    expect(written).toMatchObject({ id: "new", status: "original" });
    // A document as 0.3 wrote it: the normalized text in `neardup.normalized`, and no text field to read.
    const fp = await sharedFingerprinter();
    const old = neardupSource(fp.analyze(pairs[1]!.a), { status: "original" }, Date.now() - 5000, "old") as unknown as Record<string, unknown>;
    delete old.id; // 0.3 wrote no v4 fields
    delete old.lsh_list;
    old.normalized = Buffer.from(fp.analyze(pairs[1]!.a).normalized, "utf8").toString("base64");
    expect((await engine.bulk([{ index: { _index: index, _id: "old" } }, { neardup: old }], { refresh: true })).errors).toBe(false);
    await engine.refresh(index);

    // No normalized copy is written; the sketch is read from doc values.
    const stored = await engine.search<{ neardup: Record<string, unknown> }>({ index, body: { query: { ids: { values: ["new"] } }, docvalue_fields: ["neardup.sketch"] } });
    const hit = stored.hits.hits[0]!;
    expect(hit._source!.neardup).not.toHaveProperty("normalized");
    expect(hit.fields?.["neardup.sketch"]?.[0]).toMatch(/^[A-Za-z0-9+/=]+$/);

    // A second service: its window never saw the originals, so the engine path and the text fetch are used.
    const reader = new DedupService(engine, await sharedFingerprinter(), options);
    const fresh = await reader.check(pairs[0]!.b);
    expect(fresh).toMatchObject({ status: "duplicate", duplicate_of: "new", reason: "medium.edit" });
    const legacy = await reader.check(pairs[1]!.b);
    expect(legacy).toMatchObject({ status: "duplicate", duplicate_of: "old", reason: "medium.edit" });
  }, 120_000);

  it("stores a text filter with a long text, and a check settles a far candidate by it without reading the text; a search for lesser similarities reads it", async () => {
    const fp = await sharedFingerprinter();
    const options = resolveDedupOptions({ index, recentWindowMs: 1001 });
    const writer = new DedupService(engine, fp, options);
    await writer.ensureIndex();
    const [written] = await writer.index([{ id: "far", idGiven: true, text: far.a, time: Date.now() - 5000, fields: undefined }], "mark");
    expect(written, JSON.stringify(written)).toMatchObject({ id: "far", status: "original" });
    await engine.refresh(index);
    // The stored sketch (format 2) carries the filter of the normalized text, its counts saturated.
    const stored = await engine.search({ index, body: { query: { ids: { values: ["far"] } }, docvalue_fields: ["neardup.sketch"] } });
    const sketch = decodeSketch(stored.hits.hits[0]!.fields!["neardup.sketch"]![0] as string);
    const exact = textFilterOf(fp.analyze(far.a).normalized);
    expect(sketch.text).toBeUndefined();
    expect([...sketch.filter!.chars]).toEqual([...exact.chars].map((c) => Math.min(c, 255)));
    expect([sketch.filter!.grams, ...sketch.filter!.parts]).toEqual([exact.grams, ...exact.parts]);
    // A second service (its window never saw the document): the engine path.
    const { engine: counting, reads } = countingTextReads(engine);
    const reader = new DedupService(counting, fp, options);
    const check = await reader.check(far.b);
    expect(check, JSON.stringify(check).slice(0, 600)).toMatchObject({ status: "original" });
    expect(check.candidates).toBeGreaterThanOrEqual(1);
    expect(reads()).toBe(0);
    const wide = await reader.search({ text: far.b, minSimilarity: 0, limit: 10 });
    expect(wide.matches.map((m) => m.id)).toContain("far");
    expect(reads()).toBe(1);
  }, 120_000);
});
