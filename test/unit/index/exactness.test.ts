// Exactness: lookup equals a brute-force scan, radius 0-3 (exact buckets) and 4-8 (segment neighbours).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SegmentIndex } from "../../../src/index/index.js";
import type { Fingerprint } from "../../../src/core/fingerprint.js";
import { bruteForce, flipBits, randomFingerprint, rng } from "./random.js";
import type { ModelEntry } from "./random.js";

/** Half the entries sorted into the base tables, half in the delta chains: both paths are checked. */
function build(entries: readonly ModelEntry[]): SegmentIndex {
  const index = new SegmentIndex();
  entries.forEach((e, i) => {
    index.insert(e.id, e.fp, e.time);
    if (i === entries.length >> 1) index.optimize();
  });
  return index;
}

function got(index: SegmentIndex, q: Fingerprint, radius: number): Array<[string, number]> {
  return index.lookup(q, radius).map((m) => [m.id, m.distance]);
}

/** Random fingerprints plus clusters planted at 0..10 bits from a random base. */
function plantedData(seed: number, randomCount: number, clusters: number): { entries: ModelEntry[]; bases: Fingerprint[] } {
  const next = rng(seed);
  const entries: ModelEntry[] = [];
  const bases: Fingerprint[] = [];
  for (let i = 0; i < randomCount; i++) entries.push({ id: `r${i}`, fp: randomFingerprint(next), time: i });
  for (let c = 0; c < clusters; c++) {
    const base = randomFingerprint(next);
    bases.push(base);
    for (let d = 0; d <= 10; d++) entries.push({ id: `c${c}-${d}`, fp: flipBits(base, d, next), time: entries.length });
  }
  return { entries, bases };
}

describe("SegmentIndex.lookup equals brute force", () => {
  const { entries, bases } = plantedData(42, 20_000, 60);
  const index = build(entries);
  const next = rng(7);
  const queries: Fingerprint[] = [
    ...bases,
    ...bases.map((b) => flipBits(b, 2, next)),
    ...bases.map((b) => flipBits(b, 5, next)),
    ...Array.from({ length: 40 }, () => randomFingerprint(next)),
    ...entries.slice(0, 40).map((e) => e.fp),
  ];

  // The brute force at radius 8 holds every answer for smaller radii: compute it once per query.
  const within8 = queries.map((q) => bruteForce(entries, q, 8));

  for (let radius = 0; radius <= 8; radius++) {
    it(`radius ${radius}: planted clusters and random queries`, () => {
      let found = 0;
      for (const [k, q] of queries.entries()) {
        const want = within8[k]!.filter(([, d]) => d <= radius);
        expect(got(index, q, radius)).toEqual(want);
        found += want.length;
      }
      expect(found).toBeGreaterThan(0);
    });
  }

  it("radius 12 and 20 (scan path) too", () => {
    for (const q of queries.slice(0, 5)) {
      expect(got(index, q, 12)).toEqual(bruteForce(entries, q, 12));
      expect(got(index, q, 20)).toEqual(bruteForce(entries, q, 20));
    }
  });

  it("a delta-only index gives the same answers", () => {
    const delta = new SegmentIndex();
    for (const e of entries) delta.insert(e.id, e.fp, e.time);
    for (const q of queries.slice(0, 100)) expect(delta.lookup(q, 6)).toEqual(index.lookup(q, 6));
  });

  it("scan() agrees with lookup()", () => {
    for (const q of queries.slice(0, 50)) {
      expect(index.scan(q, 6)).toEqual(index.lookup(q, 6));
    }
  });
});

describe("SegmentIndex property: any operations, any query", () => {
  const u32 = fc.integer({ min: 0, max: 0xffffffff });
  // Few distinct segment values so collisions and near-duplicates are common.
  const seg = fc.constantFrom(0x0000, 0xffff, 0x1234, 0x1235, 0x9234, 0x0001);
  const fp = fc.oneof(
    fc.record({ hi: u32, lo: u32 }),
    fc.tuple(seg, seg, seg, seg).map(([a, b, c, d]) => ({ hi: ((a << 16) | b) >>> 0, lo: ((c << 16) | d) >>> 0 })),
  );
  const op = fc.oneof(
    fc.record({ kind: fc.constant("insert" as const), id: fc.integer({ min: 0, max: 30 }), fp }),
    fc.record({ kind: fc.constant("remove" as const), id: fc.integer({ min: 0, max: 30 }) }),
    fc.record({ kind: fc.constant("expire" as const), back: fc.integer({ min: 0, max: 20 }) }),
    fc.record({ kind: fc.constant("optimize" as const) }),
  );

  it("matches a list model after inserts (replacing ids), removes and expiries", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), fp, fc.integer({ min: 0, max: 9 }), (ops, q, radius) => {
        const index = new SegmentIndex();
        let model: ModelEntry[] = [];
        let now = 0;
        for (const o of ops) {
          if (o.kind === "insert") {
            now++;
            const id = `id${o.id}`;
            model = model.filter((e) => e.id !== id);
            model.push({ id, fp: o.fp, time: now });
            index.insert(id, o.fp, now);
          } else if (o.kind === "remove") {
            const id = `id${o.id}`;
            const had = model.some((e) => e.id === id);
            model = model.filter((e) => e.id !== id);
            expect(index.remove(id)).toBe(had);
          } else if (o.kind === "optimize") {
            index.optimize();
          } else {
            const cutoff = now - o.back;
            const before = model.length;
            model = model.filter((e) => e.time >= cutoff);
            expect(index.expireBefore(cutoff)).toBe(before - model.length);
          }
          expect(index.size).toBe(model.length);
        }
        expect(got(index, q, radius)).toEqual(bruteForce(model, q, radius));
        expect(index.entries().map((e) => e.id)).toEqual(model.map((e) => e.id));
      }),
      { numRuns: 300 },
    );
  });
});
