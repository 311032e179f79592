/**
 * Issue 9: contract v3 upgrades a v2 index in place. ensureIndex adds
 * `lsh_scheme`, `sketch` and `normalized` to the existing mapping; documents
 * written under v2 (no sketch, no LSH scheme) are still found and compared
 * (from their text), and new documents carry sketches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import v2 from "../fixtures/component-template.v2.json" with { type: "json" };
import type { Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { DocValueReads } from "../../src/service/candidates/index.js";
import { neardupSource } from "../../src/service/documents.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";

describe.each(engineTargets())("contract v2 -> v4 in place on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-upgrade");
  const text = "An index written under contract two keeps working after the upgrade: its documents have no sketch, only their text and keys.";

  beforeAll(async () => {
    engine = await connectTarget(target);
    const mappings = structuredClone(v2.template.mappings) as { properties: Record<string, unknown> };
    mappings.properties.text = { type: "text" };
    await engine.createIndex(index, { mappings });
    const fingerprinter = await sharedFingerprinter();
    const source = neardupSource(fingerprinter.analyze(text), { status: "original" }, Date.now() - 60_000, "old") as unknown as Record<string, unknown>;
    delete source.id;
    delete source.lsh_list;
    delete source.sketch;
    delete source.normalized;
    delete source.lsh_scheme;
    expect((await engine.bulk([{ index: { _index: index, _id: "old" } }, { text, neardup: source }], { refresh: true })).errors).toBe(false);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("adds the v3 fields, finds the v2 document, and writes v3 documents", async () => {
    const svc = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index, recentWindowMs: 1001 }));
    await svc.ensureIndex();
    const check = await svc.check(text.replace("keeps working", "keeps on working"));
    expect(check.duplicate_of).toBe("old");
    const [result] = await svc.index([{ id: "new", idGiven: true, text: text + " Again.", time: Date.now(), fields: undefined }], "mark");
    expect(result).toMatchObject({ id: "new", duplicate_of: "old" });
    await engine.refresh(index);
    await new Promise((r) => setTimeout(r, 1100));
    const stored = await engine.search<{ neardup: { sketch?: string; lsh_scheme?: string } }>({ index, body: { query: { ids: { values: ["new"] } } } });
    expect(stored.hits.hits[0]!._source!.neardup.sketch).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(stored.hits.hits[0]!._source!.neardup.lsh_scheme).toBe("lsh3-16x3");
    // The new document is found from its sketch.
    const again = await svc.search({ id: "old", limit: 5 });
    expect(again.matches.map((m) => m.id)).toContain("new");
    // v4: the new document carries its id in doc values; the old one does not, so candidate reads keep reading `_id`.
    const dv = await engine.search({ index, body: { query: { ids: { values: ["new"] } }, _source: false, stored_fields: "_none_", docvalue_fields: ["neardup.id"] } });
    expect(dv.hits.hits[0]!.fields?.["neardup.id"]).toEqual(["new"]);
    const reads = new DocValueReads(engine, index, 24 * 3600 * 1000);
    await reads.probe();
    expect(reads.fromDocValues()).toBe(false);
    await engine.bulk([{ delete: { _index: index, _id: "old" } }], { refresh: true });
    await reads.probe();
    expect(reads.fromDocValues()).toBe(true);
  }, 120_000);
});
