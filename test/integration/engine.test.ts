import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../src/core/errors.js";
import { fromHex, segments } from "../../src/core/fingerprint.js";
import { installTemplates, templates, totalHits, type Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { authHeader, connectTarget, engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";

/** Fixed fingerprints: a and b differ in 2 bits (they share seg0 and seg2); c is far from both. */
const FPS = {
  a: "0123456789abcdef",
  b: "0123456689abcdee",
  c: "fedcba9876543210",
};

function neardupFields(hex: string, status: "original" | "duplicate", duplicateOf?: string) {
  const [seg0, seg1, seg2, seg3] = segments(fromHex(hex));
  return {
    simhash: hex,
    seg0,
    seg1,
    seg2,
    seg3,
    status,
    ...(duplicateOf ? { duplicate_of: duplicateOf, distance: 2, similarity: 0.97, reason: "simhash" } : {}),
    length: 120,
    version: "test",
    timestamp: "2026-12-02T12:00:00Z",
  };
}

function bulkLines(index: string, docs: Record<string, Record<string, unknown>>): Record<string, unknown>[] {
  return Object.entries(docs).flatMap(([id, source]) => [{ index: { _index: index, _id: id } }, source]);
}

describe.each(engineTargets())("$kind $version ($source)", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-documents-it");

  beforeAll(async () => {
    engine = await connectTarget(target);
    await installTemplates(engine);
    await installTemplates(engine); // idempotent: a second install is a no-op, not an error
  });

  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("detects the engine kind from the root endpoint", () => {
    expect(engine.kind).toBe(target.kind);
    expect(engine.info.major).toBeGreaterThanOrEqual(2);
  });

  it("bulk-indexes documents with neardup fields through the template, then finds them by segment term", async () => {
    const result = await engine.bulk(
      bulkLines(index, {
        a: { text: "first", neardup: neardupFields(FPS.a, "original") },
        b: { text: "second", neardup: neardupFields(FPS.b, "duplicate", "a") },
        c: { text: "third", neardup: neardupFields(FPS.c, "original") },
      }),
      { refresh: true },
    );
    expect(result.errors).toBe(false);
    expect(result.items.map((i) => [i.id, i.status])).toEqual([
      ["a", 201],
      ["b", 201],
      ["c", 201],
    ]);

    const [seg0] = segments(fromHex(FPS.a));
    const found = await engine.search<{ neardup: { simhash: string } }>({
      index,
      body: { query: { bool: { filter: [{ term: { "neardup.seg0": seg0 } }] } }, _source: ["neardup.simhash"], sort: [{ "neardup.simhash": "asc" }] },
    });
    // Sorted by simhash: b (…6689…) before a (…6789…).
    expect(found.hits.hits.map((h) => h._id)).toEqual(["b", "a"]);
    expect(found.hits.hits.map((h) => h._source?.neardup.simhash)).toEqual([FPS.b, FPS.a]);

    // The segment fields are keywords: a segment value of c matches only c.
    const [, , , cSeg3] = segments(fromHex(FPS.c));
    const onlyC = await engine.search({ index, body: { query: { term: { "neardup.seg3": cSeg3 } } } });
    expect(onlyC.hits.hits.map((h) => h._id)).toEqual(["c"]);
  });

  it("aggregates verdicts with a terms aggregation", async () => {
    const response = await engine.search({
      index,
      body: { size: 0, aggs: { status: { terms: { field: "neardup.status" } } } },
    });
    const buckets = (response.aggregations?.status as { buckets: { key: string; doc_count: number }[] }).buckets;
    expect(Object.fromEntries(buckets.map((b) => [b.key, b.doc_count]))).toEqual({ original: 2, duplicate: 1 });
  });

  it("does not show a write to search until the index refreshes", async () => {
    const lazy = uniqueIndex("neardup-documents-it-lazy");
    try {
      expect(await engine.createIndex(lazy, { settings: { "index.refresh_interval": "-1", "index.number_of_replicas": 0 } })).toBe(true);
      expect(await engine.createIndex(lazy)).toBe(false);
      await engine.bulk(bulkLines(lazy, { x: { text: "x", neardup: neardupFields(FPS.a, "original") } }));
      const before = await engine.search({ index: lazy, body: { query: { match_all: {} } } });
      expect(totalHits(before)).toBe(0);
      expect(await engine.get(lazy, "x")).toMatchObject({ text: "x" }); // real-time get sees it already
      await engine.refresh(lazy);
      const after = await engine.search({ index: lazy, body: { query: { match_all: {} } } });
      expect(totalHits(after)).toBe(1);
    } finally {
      await engine.deleteIndex(lazy);
    }
  });

  it("reports a document that conflicts with the neardup mapping as a per-item error naming the engine's reason", async () => {
    const result = await engine.bulk(
      bulkLines(index, {
        bad: { text: "bad", neardup: { ...neardupFields(FPS.a, "original"), distance: "not-a-number" } },
        typo: { text: "typo", neardup: { ...neardupFields(FPS.a, "original"), simhahs: FPS.a } },
        good: { text: "good", neardup: neardupFields(FPS.c, "original") },
      }),
    );
    expect(result.errors).toBe(true);
    const [bad, typo, good] = result.items;
    expect(bad?.status).toBe(400);
    expect(bad?.error?.type).toMatch(/parsing_exception/);
    expect(bad?.error?.reason).toContain("distance");
    expect(typo?.error?.type).toBe("strict_dynamic_mapping_exception");
    expect(typo?.error?.reason).toContain("simhahs");
    expect(good?.status).toBe(201);
    expect(good?.error).toBeUndefined();
  });

  it("turns an invalid mapping into a typed error with the engine's type and reason", async () => {
    const name = uniqueIndex("neardup-it-badmap");
    const err = await engine.createIndex(name, { mappings: { properties: { neardup: { properties: { simhash: { type: "no_such_type" } } } } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NeardupError);
    expect((err as NeardupError).code).toBe("ENGINE_ERROR");
    expect((err as NeardupError).message).toMatch(/mapper_parsing_exception: .*no_such_type/);
  });

  it("maps a missing index to NOT_FOUND and keeps msearch errors per search", async () => {
    const missing = uniqueIndex("neardup-it-missing");
    const err = await engine.search({ index: missing, body: { query: { match_all: {} } } }).catch((e: unknown) => e);
    expect((err as NeardupError).code).toBe("NOT_FOUND");
    expect((err as NeardupError).message).toContain("index_not_found_exception");

    const results = await engine.msearch([
      { index, body: { query: { term: { "neardup.status": "duplicate" } } } },
      { index: missing, body: { query: { match_all: {} } } },
    ]);
    expect(results).toHaveLength(2);
    const [ok, failed] = results;
    expect(ok).not.toBeInstanceOf(Error);
    expect((ok as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id)).toEqual(["b"]);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain("index_not_found_exception");
  });

  it("answers cluster health", async () => {
    expect(["green", "yellow"]).toContain(await engine.health());
  });

  it("answers an index's health at once, and \"missing\" for an index that does not exist (the engine's 408, not an error)", async () => {
    const index = uniqueIndex("neardup-health-it");
    expect(await engine.health(index)).toBe("missing");
    try {
      await engine.createIndex(index);
      expect(["green", "yellow"]).toContain(await engine.health(index));
    } finally {
      await engine.deleteIndex(index).catch(() => undefined);
    }
    expect(await engine.health(index)).toBe("missing");
  });

  it("waits for an index's primaries: at once for an index that has them, false on the timeout for one whose primary cannot be assigned", async () => {
    const fresh = uniqueIndex("neardup-primaries-it");
    const stuck = uniqueIndex("neardup-primaries-stuck");
    try {
      await engine.createIndex(fresh);
      expect(await engine.waitForPrimaries(fresh, 10_000)).toBe(true);
      // A primary the single node may not hold (an allocation filter no node matches), created without waiting for it.
      await rawEngineRequest(target, "PUT", `/${stuck}?wait_for_active_shards=0`, { settings: { "index.routing.allocation.require._name": "no-such-node" } });
      expect(await engine.waitForPrimaries(stuck, 500)).toBe(false);
    } finally {
      await engine.deleteIndex(fresh);
      await engine.deleteIndex(stuck);
    }
  });

  it("lists a running _bulk request by the index it writes to, and not once it has ended (a new writer lease holder waits for them)", async () => {
    const bulkIndex = uniqueIndex("neardup-running-bulk");
    try {
      // A bulk long enough to be seen running: larger until it is (a fast machine may end a small one between two polls).
      let seen: string[] = [];
      for (let docs = 40_000; seen.length === 0 && docs <= 320_000; docs *= 2) {
        const body = Array.from({ length: docs }, (_, i) => `{"index":{"_index":"${bulkIndex}"}}\n{"t":"${"x".repeat(100)}","n":${i}}\n`).join("");
        let done = false;
        const sent = fetch(`${target.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson", ...authHeader(target) }, body }).then(async (res) => {
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          done = true;
        });
        while (!done && seen.length === 0) {
          const [listed, other] = await Promise.all([engine.runningBulks([bulkIndex]), engine.runningBulks(["neardup-no-such-index"])]);
          expect(other).toEqual([]);
          seen = listed;
          await new Promise((r) => setTimeout(r, 10));
        }
        await sent;
      }
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/^[\w-]+:\d+$/); // node:id
      let after = seen;
      for (let i = 0; i < 50 && after.length > 0; i++) {
        after = await engine.runningBulks([bulkIndex, "neardup-no-such-index"]);
        if (after.length > 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(after).toEqual([]);
    } finally {
      await engine.deleteIndex(bulkIndex);
    }
  }, 120_000);
});

/** The flat settings of each concrete index behind `index` (an index or an alias). */
async function settingsOf(target: ReturnType<typeof engineTargets>[number], index: string): Promise<Record<string, unknown>[]> {
  const body = (await rawEngineRequest(target, "GET", `/${index}/_settings?flat_settings=true`)) as Record<string, { settings: Record<string, unknown> }>;
  return Object.values(body).map((i) => i.settings);
}

describe.each(engineTargets())("index set-up on $kind $version ($source)", (target) => {
  it("creates the window, and each index behind a write alias, with the documents template's merge policy", async () => {
    const engine = await connectTarget(target);
    const plain = uniqueIndex("zz-neardup-it-merge"); // outside the template's pattern: the service's own settings
    const alias = uniqueIndex("zz-neardup-it-merge-alias");
    try {
      await new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index: plain })).ensureIndex();
      // The indices a rollover makes get the neardup mapping from a template the user adds (mappings/README.md).
      await installTemplates(engine);
      await engine.putIndexTemplate(`${alias}-template`, { index_patterns: [`${alias}-*`], composed_of: ["neardup"], priority: 500 });
      await new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index: alias, rollover: true })).ensureIndex();
      for (const index of [plain, alias]) {
        const all = await settingsOf(target, index);
        expect(all.length).toBe(1);
        expect(all[0]).toMatchObject({ "index.merge.policy.segments_per_tier": "4", "index.merge.policy.floor_segment": "64mb" });
      }
    } finally {
      await engine.deleteIndex(plain);
      await engine.deleteIndex(`${alias}-000001`);
      await engine.deleteIndexTemplate(`${alias}-template`);
      await engine.close();
    }
  });

  it("upgrades an index made under contract v1 (no neardup.lsh) in place, and reports a conflicting mapping by field", async () => {
    const engine = await connectTarget(target);
    const index = uniqueIndex("neardup-it-upgrade");
    const conflict = uniqueIndex("neardup-it-conflict");
    try {
      const v1 = structuredClone(templates().component.template as { mappings: { properties: { neardup: { properties: Record<string, unknown> } } } }).mappings;
      delete v1.properties.neardup.properties.lsh;
      await engine.createIndex(index, { mappings: v1 });
      const doc = { text: "x", neardup: { ...neardupFields(FPS.a, "original"), lsh: ["00:12345678"] } };
      const before = await engine.bulk(bulkLines(index, { x: doc }));
      expect(before.items[0]?.error?.type).toBe("strict_dynamic_mapping_exception");

      const service = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
      await service.ensureIndex();
      await service.ensureIndex(); // idempotent
      const after = await engine.bulk(bulkLines(index, { x: doc }), { refresh: true });
      expect(after.errors).toBe(false);
      const found = await engine.search({ index, body: { query: { term: { "neardup.lsh": "00:12345678" } } } });
      expect(found.hits.hits.map((h) => h._id)).toEqual(["x"]);

      await engine.createIndex(conflict, { mappings: { properties: { neardup: { properties: { lsh: { type: "long" } } } } } });
      const err = await new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index: conflict })).ensureIndex().catch((e: unknown) => e);
      expect((err as NeardupError).code).toBe("ENGINE_ERROR");
      expect((err as NeardupError).message).toMatch(/illegal_argument_exception: .*lsh/);
    } finally {
      await engine.deleteIndex(index);
      await engine.deleteIndex(conflict);
      await engine.close();
    }
  });
});
