/**
 * Candidate retrieval from the engine is exact: for single and grouped
 * lookups (and the grouped query's fallback when its page fills up), every
 * stored document within the radius or sharing an LSH band key, and within
 * the window, is returned, and nothing else; compared with a brute-force scan.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Analysis } from "../../src/core/fingerprinter.js";
import { hamming, toHex, segments, type Fingerprint } from "../../src/core/fingerprint.js";
import type { Engine } from "../../src/engine/index.js";
import { fetchCandidates, segmentsNeeded, sharedSegments, type Lookup } from "../../src/service/candidates/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { createRng } from "../../bench/quality/rng.js";
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
      return [{ index: { _index: index, _id: s.id } }, { text: `text of ${s.id}`, neardup: { simhash: toHex(s.fp), seg0, seg1, seg2, seg3, lsh: s.lsh, status: "original", length: 10, version: "nd1", timestamp: new Date(s.time).toISOString() } }];
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
    lookups.forEach((l, i) => {
      const expected = brute(l);
      expect(single[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(grouped[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(fallback[i]!.map((c) => c.id).sort()).toEqual(expected);
      expect(paged[i]!.candidates.map((c) => c.id).sort()).toEqual(expected);
      expect(paged[i]!.cut).toBe(false);
      for (const c of grouped[i]!) expect(c.text).toBe(`text of ${c.id}`);
    });
    expect(lookups.some((l) => brute(l).length > 0)).toBe(true);
    // Some lookups reach documents only through an LSH key.
    expect(lookups.some((l) => brute(l).some((id) => hamming(stored.find((s) => s.id === id)!.fp, l.analysis.simhash) > l.radius))).toBe(true);
  });
});
