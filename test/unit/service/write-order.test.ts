/**
 * Writes of one id land in decision order: the last version sent is the one
 * stored, also when an earlier version waits for its original's write (the
 * second wave) and a later one does not (audit: an id sent twice in one bulk
 * kept its first version, through the API and the `_bulk` proxy).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { NeardupError } from "../../../src/core/errors.js";
import { DedupService, writeWaves, type Decided } from "../../../src/service/dedup-service.js";
import fc from "fast-check";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { faultyDedupService } from "../../helpers/faulty-engine.js";
import { englishVariants, LONG_ZH, NEWS_EN, RECIPE_EN, variants } from "../../fixtures/texts/near-duplicates.js";

const answer = (r: unknown) => (r instanceof NeardupError ? `${r.code}` : `${(r as { id: string }).id} ${(r as { status: string }).status} ${(r as { duplicate_of: string | null }).duplicate_of}`);

describe("write order of one id", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });

  it("stores the last version of an id sent twice in one bulk when the first waits for its original, written in the same bulk", async () => {
    const engine = new MemoryEngine();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "twice" }));
    await service.ensureIndex();
    const [textA, textB1] = variants(LONG_ZH, 2);
    // Decided by time, then as sent: a, then b (a near-duplicate of a, so written after a), then c, then b again (unlike a).
    const docs = [
      parseDocInput({ id: "b", text: textB1!, time: 1000 }),
      parseDocInput({ id: "c", text: NEWS_EN, time: 1000 }),
      parseDocInput({ id: "b", text: RECIPE_EN, time: 1000 }),
      parseDocInput({ id: "a", text: textA!, time: 999 }),
    ];
    const results = await service.index(docs, "mark");
    expect(results.map(answer)).toEqual(["b duplicate a", "c original null", "b original null", "a original null"]);
    const stored = await engine.get<{ text: string; neardup: { status: string } }>("twice", "b");
    expect(stored?.text).toBe(RECIPE_EN);
    expect(stored?.neardup.status).toBe("original");
  });

  it("a later request's version of an id is stored after an earlier request's version still waiting for its original", async () => {
    const { engine, faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "later" });
    const [textA, textB1] = variants(LONG_ZH, 2);
    const releaseA = faults.holdWrite("a");
    const first = service.index([parseDocInput({ id: "a", text: textA!, time: 1000 }), parseDocInput({ id: "b", text: textB1!, time: 2000 })], "mark");
    // The second request is decided after the first (its ticket comes later) and its write goes out while a's is held.
    const second = service.index([parseDocInput({ id: "b", text: RECIPE_EN, time: 3000 })], "mark");
    await new Promise((r) => setTimeout(r, 300));
    releaseA();
    expect((await first).map(answer)).toEqual(["a original null", "b duplicate a"]);
    expect((await second).map(answer)).toEqual(["b original null"]);
    const stored = await engine.get<{ text: string; neardup: { status: string } }>("later", "b");
    expect(stored?.text).toBe(RECIPE_EN);
    expect(stored?.neardup.status).toBe("original");
  });

  it("a near-duplicate of a version held back behind an earlier version of its id is written after it (it waited for ever)", async () => {
    const engine = new MemoryEngine();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "chain" }));
    await service.ensureIndex();
    const [textA, textB1] = variants(LONG_ZH, 2);
    const [textB2, textC] = englishVariants(RECIPE_EN, 2);
    // Decided a, b, b again, then c (by time).
    const docs = [
      parseDocInput({ id: "b", text: textB1!, time: 998 }),
      parseDocInput({ id: "c", text: textC!, time: 1000 }),
      parseDocInput({ id: "b", text: textB2!, time: 999 }),
      parseDocInput({ id: "a", text: textA!, time: 997 }),
    ];
    const results = await service.index(docs, "mark");
    expect(results.map(answer)).toEqual(["b duplicate a", "c duplicate b", "b original null", "a original null"]);
    expect(await engine.get("chain", "b")).toMatchObject({ text: textB2 });
    expect(await engine.get("chain", "c")).toMatchObject({ neardup: { duplicate_of: "b" } });
  });
});

describe("writeWaves", () => {
  /** A chunk's decisions: ids from a few, each written or not, some waiting for an earlier written one (in the chunk) or for one outside it. */
  const chunk = fc.array(fc.record({ id: fc.constantFrom("a", "b", "c", "d"), written: fc.boolean(), original: fc.option(fc.nat(), { nil: undefined }), outside: fc.boolean(), at: fc.nat(1000) }), { maxLength: 25 }).map((specs) => {
    // Request positions in any order across ids; within one id, in decision order (keepRequestOrderPerId).
    const positions = new Map<string, number[]>();
    specs.forEach((s, k) => positions.set(s.id, [...(positions.get(s.id) ?? []), s.at * 100 + k]));
    for (const list of positions.values()) list.sort((x, y) => x - y);
    const decided: Decided[] = [];
    for (const spec of specs) {
      const earlier = decided.filter((d) => d.entry);
      const d = { item: { doc: { id: spec.id }, position: positions.get(spec.id)!.shift()! }, result: {} } as unknown as Decided;
      if (spec.written) d.entry = { id: spec.id } as never;
      if (spec.outside) d.original = { id: "elsewhere", stored: Promise.resolve(true) } as never;
      else if (spec.original !== undefined && earlier.length > 0) d.original = earlier[spec.original % earlier.length]!.entry;
      decided.push(d);
    }
    return decided;
  });

  it("puts each write after its original's and after every earlier version of its id, keeps request order in a wave, and leaves out only what neither writes nor waits", () => {
    fc.assert(
      fc.property(chunk, (decided) => {
        const waves = writeWaves(decided);
        const waveOf = new Map<Decided, number>();
        waves.forEach((w, i) => w.forEach((d) => waveOf.set(d, i)));
        for (const d of decided) expect(waveOf.has(d)).toBe(Boolean(d.entry || d.original));
        expect(waves[0]!.every((d) => !d.original)).toBe(true);
        for (const [k, d] of decided.entries()) {
          if (!waveOf.has(d)) continue;
          const original = d.original && decided.find((o) => o.entry === d.original);
          if (original) expect(waveOf.get(d)!).toBeGreaterThan(waveOf.get(original)!);
          else if (d.original) expect(waveOf.get(d)!).toBeGreaterThanOrEqual(1);
          if (d.entry) for (const e of decided.slice(0, k)) if (e.entry && e.item.doc.id === d.item.doc.id) expect(waveOf.get(d)!).toBeGreaterThanOrEqual(waveOf.get(e)!);
        }
        // Request order in a wave (the engine maps a new field from the first source in the bulk that has it).
        for (const w of waves) expect(w).toEqual(decided.filter((d) => w.includes(d)).sort((x, y) => x.item.position - y.item.position));
      }),
    );
  });
});

describe("the dedup window", () => {
  it("holds both ways: a document is compared with documents within the window before and after its time, whichever arrives first", async () => {
    const fp = await createFingerprinter();
    const hour = 3_600_000;
    const [older, newer] = variants(LONG_ZH, 2);
    const run = async (first: { text: string; time: number }, second: { text: string; time: number }) => {
      const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: "window" }));
      await service.ensureIndex();
      const [a] = await service.index([parseDocInput({ id: "first", ...first })], "mark");
      const [b] = await service.index([parseDocInput({ id: "second", ...second })], "mark");
      const check = await service.check(second.text, { id: "second", time: second.time });
      return [answer(a), answer(b), check.status];
    };
    const now = Date.now();
    // 100 hours apart: neither order makes them duplicates (the newer one first made the older its duplicate).
    expect(await run({ text: older!, time: now - 100 * hour }, { text: newer!, time: now })).toEqual(["first original null", "second original null", "original"]);
    expect(await run({ text: newer!, time: now }, { text: older!, time: now - 100 * hour })).toEqual(["first original null", "second original null", "original"]);
    // 10 hours apart, either order: the second is the first's duplicate.
    expect(await run({ text: newer!, time: now }, { text: older!, time: now - 10 * hour })).toEqual(["first original null", "second duplicate first", "duplicate"]);
  });
});

describe("a deleted original", () => {
  it("is never named: a near-duplicate of its surviving duplicate is that duplicate's, in a write and a check, and its cluster leaves it out", async () => {
    const fp = await createFingerprinter();
    const engine = new MemoryEngine();
    const first = new DedupService(engine, fp, resolveDedupOptions({ index: "gone" }));
    await first.ensureIndex();
    const [textA, textB, textC] = variants(LONG_ZH, 3);
    await first.index([parseDocInput({ id: "A", text: textA!, time: 1000 }), parseDocInput({ id: "B", text: textB!, time: 2000 })], "mark");
    expect(await engine.get("gone", "B")).toMatchObject({ neardup: { duplicate_of: "A" } });
    await engine.refresh("gone");
    // A deleted in the engine (by hand, or with its index); a sidecar that never wrote A (its window is empty).
    engine.indices.get("gone")!.docs.delete("A");
    engine.indices.get("gone")!.searchable.delete("A");
    const later = new DedupService(engine, fp, resolveDedupOptions({ index: "gone" }));
    await later.ensureIndex();
    const check = await later.check(textC!, { time: 3000 });
    expect(check).toMatchObject({ status: "duplicate", duplicate_of: "B" });
    expect((await later.index([parseDocInput({ id: "C", text: textC!, time: 3000 })], "mark")).map(answer)).toEqual(["C duplicate B"]);
    expect((await later.cluster("B")).members.map((m) => m.id)).not.toContain("A");
    // One cluster whichever member is asked (time-based-indices audit: B's listed B alone, C's named B its original).
    const ofB = await later.cluster("B");
    expect(ofB).toEqual(await later.cluster("C"));
    expect(ofB).toMatchObject({ original: "A", members: [{ id: "B", status: "duplicate" }, { id: "C", status: "duplicate" }] });
    // Stored, the root is still named, by a sidecar that did not write it.
    const kept = new MemoryEngine();
    const writer = new DedupService(kept, fp, resolveDedupOptions({ index: "kept" }));
    await writer.ensureIndex();
    await writer.index([parseDocInput({ id: "A", text: textA!, time: 1000 }), parseDocInput({ id: "B", text: textB!, time: 2000 })], "mark");
    await kept.refresh("kept");
    const reader = new DedupService(kept, fp, resolveDedupOptions({ index: "kept" }));
    await reader.ensureIndex();
    expect((await reader.check(textC!, { time: 3000 })).duplicate_of).toBe("A");
  });
});
