/**
 * The window mirror (NEARDUP_MIRROR_DOCS) against the real engines: it answers lookups with exactly the
 * candidates the engine's lookups return; it follows documents written behind its back (by sequence
 * number), starts again when documents are deleted behind its back, and applies deletes it is told of at
 * once; it stops on an index of several primary shards; past its size it lets the oldest go and leaves the
 * lookups that reach back to them to the engine; and a service with it gives the answers of one without.
 */
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Analysis } from "../../src/core/fingerprinter.js";
import { segments, toHex, type Fingerprint } from "../../src/core/fingerprint.js";
import type { Engine } from "../../src/engine/index.js";
import { fetchCandidates, type Lookup } from "../../src/service/candidates/index.js";
import { DedupService, type IndexResult } from "../../src/service/dedup-service.js";
import { createDedupMetrics } from "../../src/service/metrics.js";
import { WindowMirror } from "../../src/service/mirror.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { createRng } from "../../bench/quality/rng.js";
import { flip } from "../helpers/bits.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { nearDuplicates, baseText } from "../helpers/cluster-texts.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";

const windowMs = 3 * 24 * 3600 * 1000;

describe.each(engineTargets())("window mirror on $kind $version ($source)", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-mirror");
  const rng = createRng(11);
  const randomFp = (): Fingerprint => ({ hi: Math.floor(rng.next() * 2 ** 32) >>> 0, lo: Math.floor(rng.next() * 2 ** 32) >>> 0 });
  const key = () => `0${rng.int(2)}:${Math.floor(rng.next() * 2 ** 32).toString(16).padStart(8, "0")}`;
  const centres = Array.from({ length: 6 }, randomFp);
  let n = 0;
  const source = (id: string, fp: Fingerprint, time: number, lsh: string[]) => {
    const [seg0, seg1, seg2, seg3] = segments(fp);
    return { text: `text of ${id}`, neardup: { id, lsh_list: Buffer.from(lsh.join(" ")).toString("base64"), simhash: toHex(fp), seg0, seg1, seg2, seg3, lsh, status: "original", length: 10, version: "nd1", timestamp: new Date(time).toISOString() } };
  };
  /** Documents around each centre, at distances 0..12 and times over 10 days, written straight to the engine. */
  const writeAround = async (count: number) => {
    const ops: Record<string, unknown>[] = [];
    for (const c of centres) {
      for (let d = 0; d < count; d++) {
        const id = `s${n++}`;
        const bits = rng.shuffle(Array.from({ length: 64 }, (_, b) => b)).slice(0, d % 13);
        ops.push({ index: { _index: index, _id: id } }, source(id, flip(c, bits), Date.UTC(2026, 0, 1 + rng.int(10)), [key(), key()]));
      }
    }
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
  };
  const lookupsFor = (radius: number, keys: string[][]): Lookup[] =>
    centres.map((c, i) => ({ analysis: { simhash: c, lsh: keys[i] ?? [], version: "nd1" } as unknown as Analysis, time: Date.UTC(2026, 0, 5 + i), excludeId: i === 0 ? "s0" : undefined, radius }));
  /** The engine's own lookups, with every key alone (budget 0), as the mirror takes them without plans. */
  const fromEngine = async (lookups: Lookup[]) => (await fetchCandidates(engine, { index, textField: "text", windowMs, maxCandidates: 1000 }, lookups)).map((r) => r.candidates.map((c) => c.id).sort());
  const fromMirror = async (mirror: WindowMirror, lookups: Lookup[]) => {
    const view = await mirror.lookup(lookups);
    expect(view).toBeDefined();
    return view!.results.map((r) => r!.candidates.map((c) => c.id).sort());
  };
  /** Band keys of stored documents of other centres, and one no document holds. */
  const someKeys = async (): Promise<string[][]> => {
    const hits = (await engine.search<{ neardup: { lsh: string[] } }>({ index, body: { size: 40, query: { match_all: {} }, sort: [{ "neardup.id": "asc" }] } })).hits.hits;
    return centres.map((_, i) => [hits[(i * 7) % hits.length]!._source!.neardup.lsh[0]!, hits[(i * 5 + 3) % hits.length]!._source!.neardup.lsh[1]!, "0f:00000000"]);
  };

  beforeAll(async () => {
    engine = await connectTarget(target);
    const svc = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
    await svc.ensureIndex();
    await writeAround(13);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("answers every lookup with exactly the engine's candidates, and follows writes and deletes made behind its back", async () => {
    // Polled only when the test says so: a background poll (every second by default) could take in a write made
    // behind its back before the test has seen the view without it, on a machine slow enough.
    const mirror = new WindowMirror(engine, { index, maxDocs: 100_000, windowMs, pageSize: 17, pollMs: Number.POSITIVE_INFINITY, staleMs: Number.POSITIVE_INFINITY });
    expect(await mirror.lookup(lookupsFor(3, []))).toBeUndefined(); // not loaded: the engine answers, and the load starts
    await mirror.refresh();
    expect(mirror.state).toBe("ready");
    const keys = await someKeys();
    for (const radius of [0, 3, 8, 11]) {
      const lookups = lookupsFor(radius, keys);
      expect(await fromMirror(mirror, lookups)).toEqual(await fromEngine(lookups));
    }
    expect((await fromEngine(lookupsFor(8, keys))).flat().length).toBeGreaterThan(0);

    // Written behind its back (another writer): in the view after its next poll.
    await writeAround(2);
    const lookups = lookupsFor(8, keys);
    const before = await fromMirror(mirror, lookups);
    expect(before).not.toEqual(await fromEngine(lookups));
    await mirror.refresh();
    expect(await fromMirror(mirror, lookups)).toEqual(await fromEngine(lookups));

    // A delete it is told of (the proxy's): gone at once, and the next poll agrees with the engine.
    const told = (await fromEngine(lookups)).flat()[0]!;
    expect((await engine.bulk([{ delete: { _index: index, _id: told } }], { refresh: true })).errors).toBe(false);
    mirror.forget([told]);
    expect((await fromMirror(mirror, lookups)).flat()).not.toContain(told);
    await mirror.refresh();
    expect(mirror.state).toBe("ready");
    expect(await fromMirror(mirror, lookups)).toEqual(await fromEngine(lookups));

    // A delete behind its back: the next poll's count differs, it starts again, and the engine answers until it has loaded.
    const hidden = (await fromEngine(lookups)).flat()[0]!;
    expect((await engine.bulk([{ delete: { _index: index, _id: hidden } }], { refresh: true })).errors).toBe(false);
    await mirror.refresh();
    expect(mirror.state).toBe("idle");
    expect(mirror.reason).toMatch(/deleted behind its back/);
    expect(await mirror.lookup(lookups)).toBeUndefined();
    await mirror.refresh();
    expect(mirror.state).toBe("ready");
    expect((await fromMirror(mirror, lookups)).flat()).not.toContain(hidden);
    expect(await fromMirror(mirror, lookups)).toEqual(await fromEngine(lookups));
  });

  it("past its size, lets the oldest documents go and leaves the lookups that reach back to them to the engine", async () => {
    const mirror = new WindowMirror(engine, { index, maxDocs: 40, windowMs });
    await mirror.refresh();
    expect(mirror.state).toBe("ready");
    expect(mirror.size).toBeLessThanOrEqual(40);
    // Lookups dated 9 days after the stored documents' earliest reach back to the oldest only when the window is long enough.
    const late = centres.map((c): Lookup => ({ analysis: { simhash: c, lsh: [], version: "nd1" } as unknown as Analysis, time: Date.UTC(2026, 0, 13), excludeId: undefined, radius: 11 }));
    const early = centres.map((c): Lookup => ({ analysis: { simhash: c, lsh: [], version: "nd1" } as unknown as Analysis, time: Date.UTC(2026, 0, 1), excludeId: undefined, radius: 11 }));
    expect(await mirror.lookup(early)).toBeUndefined();
    const view = await mirror.lookup(late);
    expect(view).toBeDefined();
    expect(view!.results.map((r) => r!.candidates.map((c) => c.id).sort())).toEqual(await fromEngine(late));
    expect(view!.results.flatMap((r) => r!.candidates).length).toBeGreaterThan(0);
  });

  it("compacts itself when most of what it holds is documents re-sent since its load", async () => {
    const mirror = new WindowMirror(engine, { index, maxDocs: 100_000, windowMs, compactBytes: 1 });
    await mirror.refresh();
    expect(mirror.state).toBe("ready");
    const held = mirror.size;
    const hits = (await engine.search<Record<string, unknown>>({ index, body: { size: 1000, query: { match_all: {} } } })).hits.hits;
    // Every document written again as it is, twice: new sequence numbers, the same documents.
    for (const round of [1, 2]) {
      expect((await engine.bulk(hits.flatMap((h) => [{ index: { _index: index, _id: h._id } }, h._source!]), { refresh: true })).errors).toBe(false);
      await mirror.refresh();
      expect(mirror.state).toBe("ready");
      // Half its keys are replaced ones after the first round (kept), two thirds after the second (compacted).
      expect(mirror.compactions).toBe(round === 1 ? 0 : 1);
      expect(mirror.wasted).toBeCloseTo(round === 1 ? 0.5 : 0);
    }
    expect(mirror.size).toBe(held);
    const lookups = lookupsFor(8, await someKeys());
    expect(await fromMirror(mirror, lookups)).toEqual(await fromEngine(lookups));
  });

  it("does not follow an index of several primary shards", async () => {
    const sharded = uniqueIndex("neardup-it-mirror-shards");
    await engine.createIndex(sharded, { settings: { "index.number_of_shards": 2, "index.number_of_replicas": 0 } });
    try {
      const mirror = new WindowMirror(engine, { index: sharded, maxDocs: 1000, windowMs });
      await mirror.refresh();
      expect(mirror.state).toBe("off");
      expect(mirror.reason).toMatch(/2 primary shards/);
      expect(await mirror.lookup(lookupsFor(3, []))).toBeUndefined();
    } finally {
      await engine.deleteIndex(sharded);
    }
  });

  it("a service with the mirror gives the answers of one without, and its lookups come from the mirror", async () => {
    const fingerprinter = await sharedFingerprinter();
    const texts = [...nearDuplicates(1, 30), ...nearDuplicates(2, 30), ...Array.from({ length: 40 }, (_, i) => baseText(100 + i, 200))];
    const order = rng.shuffle(texts.map((_, i) => i));
    const run = async (mirrorDocs: number): Promise<{ results: IndexResult[]; hits: number }> => {
      const own = uniqueIndex("neardup-it-mirror-svc");
      const registry = new Registry();
      const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: own, mirrorDocs, pipelineChunk: 10 }), createDedupMetrics(registry));
      await service.ensureIndex();
      await service.mirror?.refresh();
      try {
        const results: IndexResult[] = [];
        // Bulks of 20, two at a time: decisions meet writes in flight and not yet searchable.
        for (let k = 0; k < order.length; k += 40) {
          const bulk = (from: number) => order.slice(from, from + 20).map((i) => ({ id: `t${i}`, idGiven: true, text: texts[i]!, time: Date.UTC(2026, 0, 5) + i, fields: undefined }));
          const answers = await Promise.all([service.index(bulk(k), "mark"), service.index(bulk(k + 20), "mark")]);
          for (const r of answers.flat()) {
            if (r instanceof Error) throw r;
            results.push(r);
          }
        }
        const metric = (await registry.getSingleMetricAsString("neardup_mirror_hits_per_lookup")).match(/neardup_mirror_hits_per_lookup_count (\d+)/);
        if (mirrorDocs > 0) expect(service.mirror?.state).toBe("ready");
        return { results: results.sort((a, b) => (a.id < b.id ? -1 : 1)), hits: Number(metric?.[1] ?? 0) };
      } finally {
        await engine.deleteIndex(own);
      }
    };
    const without = await run(0);
    const withMirror = await run(10_000);
    expect(without.hits).toBe(0);
    expect(withMirror.hits).toBeGreaterThan(0);
    expect(withMirror.results).toEqual(without.results);
    expect(without.results.filter((r) => r.status === "duplicate").length).toBeGreaterThanOrEqual(58);
  }, 120_000);

  it("takes a lookup's lookup-only keys (spec §9.2) as the engine does: a copy with one character replaced and one inserted or deleted finds its stored text", async () => {
    const fingerprinter = await sharedFingerprinter();
    const own = uniqueIndex("neardup-it-mirror-shifted");
    const pairs: [string, string][] = [
      ["音乐发展科技，下雨上海新闻，上海学校历史啊", "音乐发哦科技，下雨上海新闻，上海吧学校历史啊"],
      ["计划计划飞机，新闻音乐吧院，朋友文化吧音乐啊", "计划计划飞机，新闻音乐医院，朋友文化音乐啊"],
    ];
    const writer = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: own }));
    await writer.ensureIndex();
    try {
      const time = Date.UTC(2026, 0, 5);
      const written = await writer.index(pairs.map(([text], i) => ({ id: `stored${i}`, idGiven: true, text, time, fields: undefined })), "mark");
      expect(written.map((r) => ("status" in r ? r.status : r))).toEqual(["original", "original"]);
      await engine.refresh(own);
      const lookups: Lookup[] = pairs.map(([, edited]) => ({ analysis: fingerprinter.analyze(edited), time: time + 1000, excludeId: undefined, radius: 3 }));
      // No stored key of a copy is a stored key of its text: only the lookup-only keys reach it.
      for (const [i, l] of lookups.entries()) expect(l.analysis.lsh.filter((k) => fingerprinter.analyze(pairs[i]![0]).lsh.includes(k))).toEqual([]);
      const mirror = new WindowMirror(engine, { index: own, maxDocs: 100_000, windowMs, pollMs: Number.POSITIVE_INFINITY, staleMs: Number.POSITIVE_INFINITY });
      await mirror.refresh();
      const view = await mirror.lookup(lookups);
      expect(view).toBeDefined();
      const mirrored = view!.results.map((r) => r!.candidates.map((c) => c.id).sort());
      expect(mirrored).toEqual([["stored0"], ["stored1"]]);
      const engined = (await fetchCandidates(engine, { index: own, textField: "text", windowMs, maxCandidates: 1000 }, lookups)).map((r) => r.candidates.map((c) => c.id).sort());
      expect(mirrored).toEqual(engined);
    } finally {
      await engine.deleteIndex(own);
    }
  }, 120_000);

  it("declines a write's lookup with a key held by a crowd (the engine reads those oldest first), and answers a check's", async () => {
    const crowd = "0e:0c0ffee0";
    const ops: Record<string, unknown>[] = [];
    for (let k = 0; k < 130; k++) ops.push({ index: { _index: index, _id: `crowd${k}` } }, source(`crowd${k}`, randomFp(), Date.UTC(2026, 0, 5), [crowd, key()]));
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
    const mirror = new WindowMirror(engine, { index, maxDocs: 100_000, windowMs });
    await mirror.refresh();
    const lookup = (untilDuplicate: boolean): Lookup => ({ analysis: { simhash: randomFp(), lsh: [crowd], version: "nd1" } as unknown as Analysis, time: Date.UTC(2026, 0, 5), excludeId: undefined, radius: 3, untilDuplicate });
    const [write, check] = (await mirror.lookup([lookup(true), lookup(false)]))!.results;
    expect(write).toBeUndefined();
    expect(check!.candidates.filter((c) => c.id.startsWith("crowd")).length).toBe(130);
  });

  it("holds a source copied to another id as its own document: no reset, the engine's count kept", async () => {
    const mirror = new WindowMirror(engine, { index, maxDocs: 100_000, windowMs });
    await mirror.refresh();
    const held = mirror.size;
    const original = await engine.get<Record<string, unknown>>(index, "s1");
    expect((await engine.bulk([{ index: { _index: index, _id: "s1-copy" } }, original!], { refresh: true })).errors).toBe(false);
    await mirror.refresh();
    expect(mirror.state).toBe("ready");
    expect(mirror.size).toBe(held + 1);
    await mirror.refresh();
    expect(mirror.state).toBe("ready"); // and stays so: the count agrees
  });

  it("plans band keys from the engine's statistics, as the engine path does: the answers stay the same where re-sent versions still count there", async () => {
    const fingerprinter = await sharedFingerprinter();
    const A = "你妈妈喊你回家吃饭哦，回家罗回家罗";
    const B = "你妈妈叫你回家吃饭啦，回家罗回家罗";
    const t = Date.UTC(2026, 0, 5);
    const doc = (id: string, text: string) => ({ id, idGiven: true, text, time: t, fields: undefined });
    const run = async (mirrorDocs: number): Promise<string[]> => {
      const own = uniqueIndex("neardup-it-mirror-plans");
      const registry = new Registry();
      const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index: own, mirrorDocs, lshKeyBudget: 2 }), createDedupMetrics(registry));
      await service.ensureIndex();
      try {
        const out: string[] = [];
        // `a` sent three times: its versions before stay in the engine's term statistics until a merge.
        for (const bulk of [[doc("a", A), doc("f1", baseText(1, 40)), doc("f2", baseText(2, 40))], [doc("a", A), doc("f3", baseText(3, 40))], [doc("a", A), doc("f4", baseText(4, 40))]]) {
          await service.mirror?.refresh();
          for (const r of await service.index(bulk, "mark")) out.push(r instanceof Error ? r.message : `${r.id}:${r.status}:${r.duplicate_of}`);
          await engine.refresh(own);
        }
        await service.mirror?.refresh();
        const check = await service.check(B, { time: t });
        out.push(`check:${check.status}:${check.duplicate_of}`);
        for (const r of await service.index([doc("b", B)], "mark")) out.push(r instanceof Error ? r.message : `${r.id}:${r.status}:${r.duplicate_of}`);
        if (mirrorDocs > 0) expect((await registry.getSingleMetricAsString("neardup_mirror_hits_per_lookup")).match(/_count (\d+)/)?.[1]).not.toBe("0");
        return out;
      } finally {
        await engine.deleteIndex(own);
      }
    };
    expect(await run(10_000)).toEqual(await run(0));
  }, 60_000);
});

