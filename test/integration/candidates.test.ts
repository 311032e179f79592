/**
 * Candidate retrieval from the engine is exact: for single and grouped
 * lookups (and the grouped query's fallback when its page fills up), every
 * stored document within the radius or sharing an LSH band key, and within
 * the window, is returned, and nothing else; compared with a brute-force scan.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Analysis } from "../../src/core/fingerprinter.js";
import { hamming, toHex, segments, type Fingerprint } from "../../src/core/fingerprint.js";
import { encodeSketch } from "../../src/core/sketch.js";
import type { Engine } from "../../src/engine/index.js";
import { fetchCandidates, DocValueReads, KeyStatistics, segmentsNeeded, sharedSegments, type Lookup } from "../../src/service/candidates/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { createRng } from "../../bench/quality/rng.js";
import { candidateLengths, lengthAllowed } from "../../src/core/length-bounds.js";
import { DEFAULT_VERDICT_OPTIONS } from "../../src/core/verdict.js";
import { flip } from "../helpers/bits.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";


describe.each(engineTargets())("candidate retrieval on $kind $version ($source)", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-candidates");
  const rng = createRng(7);
  const randomFp = (): Fingerprint => ({ hi: Math.floor(rng.next() * 2 ** 32) >>> 0, lo: Math.floor(rng.next() * 2 ** 32) >>> 0 });
  const centres = Array.from({ length: 6 }, randomFp);
  const stored: { id: string; fp: Fingerprint; time: number; lsh: string[] }[] = [];
  const key = () => `0${rng.int(2)}:${Math.floor(rng.next() * 2 ** 32).toString(16).padStart(8, "0")}`;

  beforeAll(async () => {
    engine = await connectTarget(target);
    const svc = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
    await svc.ensureIndex();
    // Around each centre, fingerprints at distances 0..12, at times 0..9 days.
    let n = 0;
    for (const c of centres) {
      for (let d = 0; d <= 12; d++) {
        const bits = rng.shuffle(Array.from({ length: 64 }, (_, b) => b)).slice(0, d);
        stored.push({ id: `s${n++}`, fp: flip(c, bits), time: Date.UTC(2026, 0, 1 + rng.int(10)), lsh: [key(), key()] });
      }
    }
    const ops = stored.flatMap((s) => {
      const [seg0, seg1, seg2, seg3] = segments(s.fp);
      return [{ index: { _index: index, _id: s.id } }, { text: `text of ${s.id}`, neardup: { id: s.id, lsh_list: Buffer.from(s.lsh.join(" ")).toString("base64"), simhash: toHex(s.fp), seg0, seg1, seg2, seg3, lsh: s.lsh, status: "original", length: 10, version: "nd1", timestamp: new Date(s.time).toISOString() } }];
    });
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  const windowMs = 3 * 24 * 3600 * 1000;
  // Each lookup carries one LSH key of a few stored documents of other centres (far in Hamming terms) and one unknown key.
  const lookupsFor = (radius: number): Lookup[] =>
    centres.map((c, i) => {
      const lsh = [stored[(i * 31 + 20) % stored.length]!.lsh[0]!, stored[(i * 17 + 45) % stored.length]!.lsh[1]!, "0f:00000000"];
      return { analysis: { simhash: c, lsh, version: "nd1" } as unknown as Analysis, time: Date.UTC(2026, 0, 5 + i), excludeId: i === 0 ? "s0" : undefined, radius };
    });
  const brute = (l: Lookup) =>
    stored
      .filter(
        (s) =>
          s.id !== l.excludeId &&
          s.time >= l.time - windowMs &&
          s.time <= l.time + windowMs && // the window holds both ways
          ((hamming(s.fp, l.analysis.simhash) <= l.radius && (segmentsNeeded(l.radius, l.analysis.lsh) === 1 || sharedSegments(s.fp, l.analysis.simhash) >= 2)) ||
            s.lsh.some((k) => l.analysis.lsh.includes(k))),
      )
      .map((s) => s.id)
      .sort();

  it.each([0, 3, 5, 8, 11])("returns exactly the brute-force set at radius %i, single, grouped and grouped-with-fallback", async (radius) => {
    const lookups = lookupsFor(radius);
    const source = { index, textField: "text", windowMs, maxCandidates: 1000 };
    const single = await Promise.all(lookups.map((l) => fetchCandidates(engine, source, [l]).then((r) => r[0]!.candidates)));
    const grouped = (await fetchCandidates(engine, source, lookups)).map((r) => r.candidates);
    const fallback = (await fetchCandidates(engine, { ...source, groupPage: 3 }, lookups)).map((r) => r.candidates);
    // Pages of 2 hits: every candidate is still read (search_after, ties read apart), nothing is cut.
    const paged = await Promise.all(lookups.map((l) => fetchCandidates(engine, { ...source, maxCandidates: 2, maxPages: 1000 }, [l]).then((r) => r[0]!)));
    // Every stored document has neardup.id (contract v4): reads skip stored fields (`_id`) and take ids from doc values.
    const docValueReads = new DocValueReads(engine, index, 1000 * windowMs); // the probe counts every stored document (times in January 2026)
    await docValueReads.probe();
    expect(docValueReads.fromDocValues()).toBe(true);
    const noStored = { ...source, docValueReads };
    const singleDv = await Promise.all(lookups.map((l) => fetchCandidates(engine, noStored, [l]).then((r) => r[0]!.candidates)));
    const groupedDv = (await fetchCandidates(engine, noStored, lookups)).map((r) => r.candidates);
    const pagedDv = await Promise.all(lookups.map((l) => fetchCandidates(engine, { ...noStored, maxCandidates: 2, maxPages: 1000 }, [l]).then((r) => r[0]!)));
    expect(docValueReads.fromDocValues()).toBe(true); // no hit lacked neardup.id
    lookups.forEach((l, i) => {
      const expected = brute(l);
      expect(single[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(grouped[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(fallback[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(paged[i]!.candidates.map((c) => c.id).sort()).toEqual(expected);
      expect(paged[i]!.cut).toBe(false);
      expect(singleDv[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(groupedDv[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(pagedDv[i]!.candidates.map((c) => c.id).sort()).toEqual(expected);
      for (const c of grouped[i]!) expect(c.text).toBe(`text of ${c.id}`);
    });
    expect(lookups.some((l) => brute(l).length > 0)).toBe(true);
    // Some lookups reach documents only through an LSH key.
    expect(lookups.some((l) => brute(l).some((id) => hamming(stored.find((s) => s.id === id)!.fp, l.analysis.simhash) > l.radius))).toBe(true);
  });

  it("a grouped lookup draws from the engine only what its lookups need: not every document sharing one 16-bit segment", async () => {
    // 60 far documents, each sharing exactly one segment with a centre (as N / 65,536 stored documents
    // per segment field do at scale): none is a candidate at radius 3, where two shared segments are needed.
    const far = Array.from({ length: 60 }, (_, k) => {
      const centre = segments(centres[k % centres.length]!);
      const other = segments(randomFp());
      const segs = other.map((v, i) => (i === k % 4 ? centre[i]! : v)) as [string, string, string, string];
      return { id: `far${k}`, segs };
    });
    const ops = far.flatMap((f) => {
      const [seg0, seg1, seg2, seg3] = f.segs;
      return [{ index: { _index: index, _id: f.id } }, { text: `text of ${f.id}`, neardup: { simhash: f.segs.join(""), seg0, seg1, seg2, seg3, lsh: [key()], status: "original", length: 10, version: "nd1", timestamp: new Date(Date.UTC(2026, 0, 5)).toISOString() } }];
    });
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
    const lookups = lookupsFor(3);
    let hits = 0;
    const grouped = await fetchCandidates(engine, { index, textField: "text", windowMs, maxCandidates: 1000 }, lookups, { onHits: (n) => (hits += n) });
    lookups.forEach((l, i) => expect(grouped[i]!.candidates.map((c) => c.id).sort()).toEqual(brute(l)));
    const needed = new Set(lookups.flatMap((l) => brute(l)));
    // The group's hits are the lookups' candidates (and documents within the window they share keys with), not the 60.
    expect(hits).toBeLessThan(needed.size + 10);
  });
});

/**
 * Length bounds (core length-bounds.ts): a lookup that only decides (a write,
 * a check) reads a document reached through a band key only when some verdict
 * rule can hold at the two lengths, or when they share a segment; exactly
 * that set, single, grouped (lookups of unlike lengths in one query) and
 * paged, compared with a brute-force scan. Documents carry sketches, as every
 * document written since contract v3 does.
 */
describe.each(engineTargets())("candidate retrieval with length bounds on $kind $version ($source)", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-lengths");
  const rng = createRng(13);
  const randomFp = (): Fingerprint => ({ hi: Math.floor(rng.next() * 2 ** 32) >>> 0, lo: Math.floor(rng.next() * 2 ** 32) >>> 0 });
  const LENGTHS = [10, 40, 120, 300, 900, 3000, 7000];
  const LOOKUP_LENGTHS = [300, 40, 2000, 100, 6000, 900];
  const centres = LOOKUP_LENGTHS.map(randomFp);
  const keys = Array.from({ length: 12 }, (_, k) => `0${k % 3}:${Math.floor(rng.next() * 2 ** 32).toString(16).padStart(8, "0")}`);
  const stored: { id: string; fp: Fingerprint; lsh: string[]; length: number; time: number }[] = [];
  const time = Date.UTC(2026, 0, 2);

  beforeAll(async () => {
    engine = await connectTarget(target);
    const svc = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
    await svc.ensureIndex();
    // Around each centre, documents at distances 0..8 of every length; each shares one of a few keys.
    let n = 0;
    for (const c of centres) {
      for (let d = 0; d <= 8; d++) {
        const bits = rng.shuffle(Array.from({ length: 64 }, (_, b) => b)).slice(0, d);
        for (const length of LENGTHS) stored.push({ id: `l${n}`, fp: flip(rng.int(3) === 0 ? c : randomFp(), bits), lsh: [keys[rng.int(keys.length)]!], length, time: time + n++ });
      }
    }
    const ops = stored.flatMap((s) => {
      const [seg0, seg1, seg2, seg3] = segments(s.fp);
      const sketch = encodeSketch({ length: s.length, hashes: new Uint32Array(0), weights: new Float32Array(0) });
      return [{ index: { _index: index, _id: s.id } }, { text: `text of ${s.id}`, neardup: { id: s.id, lsh_list: Buffer.from(s.lsh.join(" ")).toString("base64"), simhash: toHex(s.fp), seg0, seg1, seg2, seg3, lsh: s.lsh, lsh_scheme: "lsh2-16x3", status: "original", length: s.length, version: "nd1", timestamp: new Date(s.time).toISOString(), sketch } }];
    });
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it.each([3, 8])("returns exactly the brute-force set less what no rule allows by length, at radius %i, single, grouped and paged", async (radius) => {
    const lookups = centres.map((c, i): Lookup => {
      const length = LOOKUP_LENGTHS[i]!;
      const analysis = { simhash: c, lsh: [keys[i]!, keys[i + 6]!], length, version: "nd1", lshScheme: "lsh2-16x3" } as unknown as Analysis;
      return { analysis, time: time + 60_000, excludeId: undefined, radius, lengths: candidateLengths(DEFAULT_VERDICT_OPTIONS, length) };
    });
    const withinRadius = (l: Lookup, s: (typeof stored)[number]) => hamming(s.fp, l.analysis.simhash) <= l.radius && (segmentsNeeded(l.radius, l.analysis.lsh) === 1 || sharedSegments(s.fp, l.analysis.simhash) >= 2);
    const keyed = (l: Lookup, s: (typeof stored)[number]) => s.lsh.some((k) => l.analysis.lsh.includes(k));
    const allowed = (l: Lookup, s: (typeof stored)[number]) => lengthAllowed(l.lengths, s.length) || sharedSegments(s.fp, l.analysis.simhash) >= 1;
    const expected = (l: Lookup) => stored.filter((s) => withinRadius(l, s) || (keyed(l, s) && allowed(l, s))).map((s) => s.id).sort();
    const source = { index, textField: "text", windowMs: 3_600_000, maxCandidates: 1000 };
    const single = await Promise.all(lookups.map((l) => fetchCandidates(engine, source, [l]).then((r) => r[0]!.candidates)));
    const grouped = (await fetchCandidates(engine, source, lookups)).map((r) => r.candidates);
    const paged = await Promise.all(lookups.map((l) => fetchCandidates(engine, { ...source, maxCandidates: 2, maxPages: 1000 }, [l]).then((r) => r[0]!.candidates)));
    lookups.forEach((l, i) => {
      expect(single[i]!.map((c) => c.id).sort()).toEqual(expected(l));
      expect(grouped[i]!.map((c) => c.id).sort()).toEqual(expected(l));
      expect(paged[i]!.map((c) => c.id).sort()).toEqual(expected(l));
    });
    // The bounds leave out documents that share a key (and no segment), and keep others that do.
    expect(lookups.some((l) => stored.some((s) => keyed(l, s) && !withinRadius(l, s) && !allowed(l, s)))).toBe(true);
    expect(lookups.some((l) => stored.some((s) => keyed(l, s) && !withinRadius(l, s) && lengthAllowed(l.lengths, s.length)))).toBe(true);
  });
});

/**
 * Selective LSH keys (issue 9): with a key budget, a band key held by more
 * documents than the budget reaches a document only together with a second
 * shared key; rarer keys still reach alone; the engine's term statistics
 * decide, for single, grouped and paged lookups alike.
 */
describe.each(engineTargets())("selective LSH keys on $kind $version ($source)", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-keys");
  const rng = createRng(11);
  const far = (): Fingerprint => ({ hi: Math.floor(rng.next() * 2 ** 32) >>> 0, lo: Math.floor(rng.next() * 2 ** 32) >>> 0 });
  const time = Date.UTC(2026, 0, 2);
  const docs: { id: string; lsh: string[] }[] = [];

  beforeAll(async () => {
    engine = await connectTarget(target);
    const svc = new DedupService(engine, await sharedFingerprinter(), resolveDedupOptions({ index }));
    await svc.ensureIndex();
    // 40 documents hold the common key A, 40 the common key B, each with a key of its own;
    // one holds both A and B; one holds the rare key R.
    for (let i = 0; i < 40; i++) docs.push({ id: `a${i}`, lsh: ["00:aaaaaaaa", `02:${i.toString(16).padStart(8, "0")}`] });
    for (let i = 0; i < 40; i++) docs.push({ id: `b${i}`, lsh: ["01:bbbbbbbb", `03:${i.toString(16).padStart(8, "0")}`] });
    docs.push({ id: "both", lsh: ["00:aaaaaaaa", "01:bbbbbbbb"] }, { id: "rare", lsh: ["04:cccccccc"] });
    const ops = docs.flatMap((d) => {
      const fp = far();
      const [seg0, seg1, seg2, seg3] = segments(fp);
      return [{ index: { _index: index, _id: d.id } }, { text: `text of ${d.id}`, neardup: { simhash: toHex(fp), seg0, seg1, seg2, seg3, lsh: d.lsh, status: "original", length: 10, version: "nd1", timestamp: new Date(time).toISOString() } }];
    });
    expect((await engine.bulk(ops, { refresh: true })).errors).toBe(false);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  const lookup = (lsh: string[]): Lookup => ({ analysis: { simhash: far(), lsh, version: "nd1" } as unknown as Analysis, time: time + 1000, excludeId: undefined, radius: 3 });
  const source = { index, textField: "text", windowMs: 24 * 3600 * 1000, maxCandidates: 1000 };
  const ids = (r: { candidates: { id: string }[] }) => r.candidates.map((c) => c.id).sort();

  it("reads the engine's document frequencies of band keys", async () => {
    const [resolved] = [await engine.resolveIndices(index)];
    expect(resolved).toEqual([index]);
    const df = await engine.termDocFrequencies(resolved!, "neardup.lsh", ["00:aaaaaaaa", "01:bbbbbbbb", "04:cccccccc", "05:00000000"]);
    expect(Object.fromEntries(df)).toEqual({ "00:aaaaaaaa": 41, "01:bbbbbbbb": 41, "04:cccccccc": 1 });
    expect(await engine.resolveIndices(`${index}-absent`)).toEqual([]);
  });

  it("a common key reaches only with a second shared key; rare keys alone; the same single, grouped and paged", async () => {
    const keys = ["00:aaaaaaaa", "01:bbbbbbbb", "04:cccccccc", "0f:00000000"];
    const onlyA = ["00:aaaaaaaa", "0e:00000000"];
    const all = docs.map((d) => d.id).sort();
    const aDocs = docs.filter((d) => d.lsh.includes("00:aaaaaaaa")).map((d) => d.id).sort();
    const paired: number[] = [];
    const observer = { onPaired: (_l: Lookup, plan: { paired: string[] }) => void paired.push(plan.paired.length) };
    for (const [budget, expected, expectedA] of [
      [0, all, aDocs],
      [10, ["both", "rare"], []],
      [100, all, aDocs],
    ] as const) {
      // A source without KeyStatistics of its own gets a fresh one per call, which asks its first query beside the
      // statistics (every key alone) and lets the plan filter; a kept one that has seen a plan pair keys asks after.
      const s = { ...source, lshKeyBudget: budget };
      const kept = { ...s, keyStatistics: new KeyStatistics(engine, index) };
      const single = await fetchCandidates(engine, s, [lookup(keys)], observer);
      const grouped = await fetchCandidates(engine, s, [lookup(keys), lookup(onlyA)], observer);
      const fallback = await fetchCandidates(engine, { ...s, groupPage: 2 }, [lookup(keys), lookup(onlyA)], observer);
      const paged = await fetchCandidates(engine, { ...s, maxCandidates: 3, maxPages: 1000 }, [lookup(keys)], observer);
      await fetchCandidates(engine, kept, [lookup(keys)], observer);
      const planned = await fetchCandidates(engine, kept, [lookup(keys)], observer);
      const plannedGrouped = await fetchCandidates(engine, kept, [lookup(keys), lookup(onlyA)], observer);
      expect(ids(planned[0]!)).toEqual([...expected]);
      expect(ids(plannedGrouped[0]!)).toEqual([...expected]);
      expect(ids(plannedGrouped[1]!)).toEqual([...expectedA]);
      expect(ids(single[0]!)).toEqual([...expected]);
      expect(ids(grouped[0]!)).toEqual([...expected]);
      expect(ids(grouped[1]!)).toEqual([...expectedA]);
      expect(ids(fallback[0]!)).toEqual([...expected]);
      expect(ids(fallback[1]!)).toEqual([...expectedA]);
      expect(ids(paged[0]!)).toEqual([...expected]);
      // Engine hits follow the plan once a plan has paired keys: with budget 10 the common keys' 80 documents are not read.
      if (budget === 10) expect(planned[0]!.hits).toBe(2);
      if (budget === 10) expect(single[0]!.hits).toBe(82); // asked before the plan: read, then left out by it
      expect(single[0]!.pairedKeys).toBe(budget === 10 ? 2 : 0);
    }
    expect(paired.length).toBeGreaterThan(0);
  });
});
