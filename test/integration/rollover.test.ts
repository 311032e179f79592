/**
 * Issue 9: time-based indices. neardup writes through a write alias that rolls
 * over and reads every index behind it; deleting the oldest index during
 * ingest (what ILM/ISM do) causes no error and loses no acknowledged document,
 * and deleting the live write index makes the next write create a new one.
 * The lifecycle plugins do not run on the local nodes, so the test calls
 * `_rollover` and deletes indices itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../src/core/errors.js";
import type { Engine } from "../../src/engine/index.js";
import { installTemplates } from "../../src/engine/index.js";
import { DedupService, type IndexResult } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { createRng } from "../../bench/quality/rng.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";

const rng = createRng(91);
const syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ha", "ve", "zo", "bi", "fu", "ja", "xe", "qu", "wa", "yo"];
const word = () => Array.from({ length: 2 + rng.int(3) }, () => syllables[rng.int(syllables.length)]).join("");
const text = () => Array.from({ length: 60 }, word).join(" ") + ".";

describe.each(engineTargets())("time-based indices on $kind $version", (target) => {
  let engine: Engine;
  const alias = uniqueIndex("neardup-it-rollover");
  let svc: DedupService;
  const originals = Array.from({ length: 30 }, text);

  beforeAll(async () => {
    engine = await connectTarget(target);
    await installTemplates(engine);
    // What a user does for time-based indices: an index template for the rolled indices, composing neardup.
    await engine.putIndexTemplate(`${alias}-template`, { index_patterns: [`${alias}-*`], composed_of: ["neardup"], priority: 500, template: { mappings: { properties: { text: { type: "text" } } } } });
    svc = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index: alias, rollover: true, recentWindowMs: 1001 }));
    await svc.ensureIndex();
  });
  afterAll(async () => {
    for (const b of await engine.aliasIndices(alias)) await engine.deleteIndex(b.index);
    await engine.deleteIndexTemplate(`${alias}-template`);
    await engine.close();
  });

  let clock = Date.now() - 3600_000;
  const docs = (prefix: string, texts: string[]) => texts.map((t, i) => ({ id: `${prefix}${i}`, idGiven: true, text: t, time: clock++, fields: undefined }));
  const ok = (results: (IndexResult | NeardupError)[]): IndexResult[] => {
    for (const r of results) if (r instanceof NeardupError) throw r;
    return results as IndexResult[];
  };
  // The recent-writes window shows a write only until the engine can (acknowledged + the 1 s refresh interval).
  const settle = () => new Promise((r) => setTimeout(r, 1100));

  it("writes through the alias and finds duplicates across indices; GET and clusters read every index", async () => {
    expect((await engine.aliasIndices(alias)).map((b) => b.index)).toEqual([`${alias}-000001`]);
    ok(await svc.index(docs("o", originals), "mark"));
    const rolled = await engine.rollover(alias);
    expect(rolled).toMatchObject({ rolledOver: true, oldIndex: `${alias}-000001`, newIndex: `${alias}-000002` });
    await engine.refresh(alias);
    await settle();
    const results = ok(await svc.index(docs("n", originals.map((t) => t.replace(/\.$/, "!"))), "mark"));
    expect(results.map((r) => r.duplicate_of)).toEqual(originals.map((_, i) => `o${i}`));
    await engine.refresh(alias);
    const cluster = await svc.cluster("n3");
    expect(cluster.original).toBe("o3");
    expect(cluster.members.map((m) => m.id)).toEqual(["o3", "n3"]);
    const found = await svc.search({ id: "o5", limit: 5 });
    expect(found.matches.map((m) => m.id)).toContain("n5");
    // A write just acknowledged, not yet searchable, read by id over an alias of two indices (docs audit: 404 for
    // about a second: GET refuses an alias of several indices; the write index is read instead).
    ok(await svc.index(docs("fresh", [text()]), "mark"));
    expect((await svc.cluster("fresh0")).members.map((m) => m.id)).toEqual(["fresh0"]);
    expect((await svc.search({ id: "fresh0", limit: 5 })).matches).toEqual([]);
  }, 300_000);

  it("survives a rollover and the deletion of the oldest index during ingest, and the deletion of the live index: no error, no lost acknowledged document", async () => {
    const acknowledged = new Set<string>();
    const gone = new Set<string>();
    const ingest = async (prefix: string, batches: number) => {
      for (let b = 0; b < batches; b++) {
        const results = ok(await svc.index(docs(`${prefix}${b}-`, Array.from({ length: 10 }, text)), "mark"));
        for (const r of results) if (r.action === "indexed") acknowledged.add(r.id);
        await svc.check(text()); // reads keep working too
      }
    };
    // The oldest index holds only the originals o*: record them, then drop it while ingest runs.
    for (let i = 0; i < originals.length; i++) gone.add(`o${i}`);
    await Promise.all([
      ingest("f", 8),
      (async () => {
        await engine.rollover(alias);
        await engine.deleteIndex(`${alias}-000001`);
      })(),
    ]);
    // A lifecycle policy deleting the live write index: the next write creates the next one.
    const behind = await engine.aliasIndices(alias);
    const live = behind.find((b) => b.writeIndex)!.index;
    await engine.refresh(live);
    const inLive = await engine.search<unknown>({ index: live, body: { size: 1000, _source: false, query: { match_all: {} } } });
    for (const h of inLive.hits.hits) gone.add(h._id);
    await engine.deleteIndex(live);
    await ingest("g", 3);
    const after = await engine.aliasIndices(alias);
    expect(after.filter((b) => b.writeIndex)).toHaveLength(1);

    await engine.refresh(alias);
    const present = await engine.search<unknown>({ index: alias, body: { size: 10_000, _source: false, query: { match_all: {} } } });
    const ids = new Set(present.hits.hits.map((h) => h._id));
    const lost = [...acknowledged].filter((id) => !ids.has(id) && !gone.has(id));
    expect(lost).toEqual([]);
    expect([...acknowledged].filter((id) => id.startsWith("g")).every((id) => ids.has(id))).toBe(true);
    expect(acknowledged.size).toBe(110);
  }, 600_000);

  it("an alias whose rolled-over indices no template would give the neardup mapping is refused at set-up, naming the template to add (ops audit: every write failed after the first rollover)", async () => {
    const bare = uniqueIndex("neardup-it-rollover-bare");
    const service = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index: bare, rollover: true, recentWindowMs: 1001 }));
    await expect(service.ensureIndex()).rejects.toMatchObject({ code: "INVALID_CONFIG", message: expect.stringContaining(`${bare}-*`) });
    expect(await engine.aliasIndices(bare)).toEqual([]); // nothing made
  }, 300_000);

  it("a duplicate re-sent after a rollover is stored in both indices and listed once in its cluster, as its newest copy (audit 12: listed twice)", async () => {
    const [a] = [text()];
    ok(await svc.index(docs("c-o", [a!]), "mark"));
    const [dup] = ok(await svc.index(docs("c-n", [a!.replace(/\.$/, "!")]), "mark"));
    expect(dup!.duplicate_of).toBe("c-o0");
    await engine.rollover(alias);
    await settle();
    ok(await svc.index(docs("c-n", [a!.replace(/\.$/, "?")]), "mark")); // the same id again, into the new index
    await engine.refresh(alias);
    await settle();
    const copies = await engine.search<unknown>({ index: alias, body: { size: 10, _source: false, query: { ids: { values: ["c-n0"] } } } });
    expect(copies.hits.hits).toHaveLength(2); // stored in both indices (docs/dedup.md, "Re-sending an id after a rollover")
    expect((await svc.cluster("c-o0")).members.map((m) => m.id)).toEqual(["c-o0", "c-n0"]);
  }, 300_000);
});

