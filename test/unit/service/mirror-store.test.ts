/**
 * The window mirror's compact store answers as a plain model of its documents does: after any sequence of
 * puts (new and replacing) and removes, the slots a lookup reads are exactly the documents sharing one of
 * its keys or within its radius, each candidate carries exactly the lookup's keys it shares, and key
 * holders are counted exactly (the key table grows and is rebuilt on the way).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hamming, type Fingerprint } from "../../../src/core/fingerprint.js";
import { encodeSketch, decodeSketch } from "../../../src/core/sketch.js";
import { MirrorStore, parseKey, parseKeys, type MirrorDoc } from "../../../src/service/mirror-store.js";

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
/** Few distinct keys, so that documents share them. */
const keyArb = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 5 })).map(([band, h]) => `${hex(band, 2)}:${hex(h * 0x1234567, 8)}`),
  fc.integer({ min: 0, max: 5 }).map((h) => `w:${hex(h * 7919, 8)}${hex(h, 8)}`),
  // Block keys with the very digits of the word keys: the kind alone tells them apart.
  fc.integer({ min: 0, max: 5 }).map((h) => `p:${hex(h * 7919, 8)}${hex(h, 8)}`),
);
const fpArb = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 0xffffffff })).map(([hi, lo]): Fingerprint => ({ hi, lo: lo >>> 0 }));
const opArb = fc.oneof(
  fc.record({ op: fc.constant("put" as const), id: fc.integer({ min: 0, max: 30 }), fp: fpArb, keys: fc.uniqueArray(keyArb, { maxLength: 6 }), dup: fc.boolean() }),
  fc.record({ op: fc.constant("remove" as const), id: fc.integer({ min: 0, max: 30 }) }),
);

function doc(id: string, fp: Fingerprint, keys: string[], dup: boolean, seqNo: number): MirrorDoc {
  return { id, seqNo, simhash: fp, time: seqNo, status: dup ? "duplicate" : "original", duplicateOf: dup ? "root" : undefined, lsh: keys, lshScheme: "lsh2-16x3", version: "nd2", sketch: undefined };
}

describe("MirrorStore", () => {
  it("reads what a model of its documents reads, through puts, replacements and removes", () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 120 }), fc.array(fc.tuple(fpArb, fc.uniqueArray(keyArb, { maxLength: 5 }), fc.integer({ min: 0, max: 12 })), { minLength: 1, maxLength: 5 }), (ops, probes) => {
        const store = new MirrorStore();
        const model = new Map<string, { fp: Fingerprint; keys: string[]; dup: boolean }>();
        ops.forEach((o, seq) => {
          const id = `d${o.id}`;
          if (o.op === "remove") {
            store.remove(id);
            model.delete(id);
          } else {
            expect(store.put(doc(id, o.fp, o.keys, o.dup, seq))).toBe(true);
            model.set(id, { fp: o.fp, keys: o.keys, dup: o.dup });
          }
        });
        expect(store.size).toBe(model.size);
        for (const [fp, keys, radius] of probes) {
          const parsed = parseKeys(keys);
          const got = [...store.slots(parsed, fp, radius)].map((slot) => store.candidate(slot, parsed, false));
          const want = [...model].filter(([, d]) => hamming(d.fp, fp) <= radius || d.keys.some((k) => keys.includes(k)));
          expect(got.map((c) => c.id).sort()).toEqual(want.map(([id]) => id).sort());
          for (const c of got) {
            const d = model.get(c.id)!;
            expect(c.simhash).toEqual(d.fp);
            expect(c.status).toBe(d.dup ? "duplicate" : "original");
            expect([...c.lsh!].sort()).toEqual(keys.filter((k) => d.keys.includes(k)).sort());
          }
          for (const k of parsed.keys) expect(store.holders(k)).toBe([...model.values()].filter((d) => d.keys.includes(k.key)).length);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps each document's sketch and reads its length without decoding it", () => {
    const store = new MirrorStore();
    const sketch = { length: 7, hashes: new Uint32Array([1, 5, 9]), weights: new Float32Array([0.5, 0.5, 0.7071]), text: "七个字的文本呢" };
    const bytes = Buffer.from(encodeSketch(sketch), "base64");
    store.put({ ...doc("a", { hi: 1, lo: 2 }, ["00:00000001"], false, 1), sketch: bytes });
    store.put({ ...doc("b", { hi: 1, lo: 3 }, ["00:00000001"], false, 2), sketch: undefined });
    const slots = [...store.slots(parseKeys(["00:00000001"]), { hi: 0, lo: 0 }, 0)];
    const byId = new Map(slots.map((s) => [store.idOf(s), s]));
    expect(store.lengthOf(byId.get("a")!)).toBe(7);
    expect(store.sketchOf(byId.get("a")!)).toEqual(decodeSketch(encodeSketch(sketch)));
    expect(store.lengthOf(byId.get("b")!)).toBeUndefined();
    expect(store.sketchOf(byId.get("b")!)).toBeUndefined();
  });

  it("counts what replaced and removed documents still take", () => {
    const store = new MirrorStore();
    const bytes = Buffer.from(encodeSketch({ length: 3, hashes: new Uint32Array([1, 2]), weights: new Float32Array([0.6, 0.8]) }), "base64");
    for (let i = 0; i < 10; i++) store.put({ ...doc(`d${i}`, { hi: i, lo: i }, ["00:00000001", "01:00000002"], false, i), sketch: bytes });
    expect(store.wasted).toBe(0);
    for (let i = 0; i < 10; i++) store.put({ ...doc(`d${i}`, { hi: i, lo: i }, ["00:00000003", "01:00000004"], false, 10 + i), sketch: bytes });
    expect(store.wasted).toBeCloseTo(0.5);
    store.remove("d0");
    expect(store.wasted).toBeCloseTo(11 / 20);
    expect(store.size).toBe(9);
  });

  it("compacts to its live documents alone, reading as before", async () => {
    const store = new MirrorStore();
    const sketch = (n: number) => Buffer.from(encodeSketch({ length: n, hashes: new Uint32Array([n]), weights: new Float32Array([1]), text: "字".repeat(n) }), "base64");
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) store.put({ ...doc(`d${i}`, { hi: i, lo: round }, [`0${i % 3}:0000000${round}`, `w:${hex(i, 16)}`], i % 2 === 0, round * 1000 + i), candidateId: i === 77 ? "seven" : undefined, sketch: sketch(1 + (i % 9)) });
    }
    for (let i = 0; i < 50; i++) store.remove(`d${i}`);
    expect(store.wasted).toBeGreaterThan(0.6);
    const next = await store.compacted(17);
    expect(next.size).toBe(150);
    expect(next.wasted).toBe(0);
    expect(next.deadBytes).toBe(0);
    const probe = parseKeys(["00:00000002", "01:00000002", "02:00000002"]);
    const read = (s: MirrorStore) =>
      [...s.slots(probe, { hi: 0, lo: 0 }, 0)]
        .map((slot) => ({ ...s.candidate(slot, probe), length: s.lengthOf(slot), seq: s.seqNoOf(s.idOf(slot)!) }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(read(next)).toEqual(read(store));
    expect(read(next).length).toBe(150);
    expect(read(next).find((c) => c.id === "seven")).toBeDefined();
  });

  it("refuses keys of a form it cannot hold, holding nothing of that document", () => {
    const store = new MirrorStore();
    expect(parseKey("zz:00000000")).toBeUndefined();
    expect(parseKey("p:0000000100000002")).toEqual({ kind: 3, a: 1, b: 2 });
    expect(parseKey("w:0000000100000002")).toEqual({ kind: 2, a: 1, b: 2 });
    expect(parseKey("p:00000001")).toBeUndefined();
    expect(store.put(doc("a", { hi: 0, lo: 0 }, ["00:00000001", "x:1"], false, 1))).toBe(false);
    expect(store.size).toBe(0);
    expect(store.holders(parseKeys(["00:00000001"]).keys[0]!)).toBe(0);
  });

  it("grows past its first tables with many documents and keys", () => {
    const store = new MirrorStore();
    for (let i = 0; i < 50_000; i++) store.put(doc(`d${i}`, { hi: i, lo: i * 7 }, [`${hex(i % 16, 2)}:${hex(i, 8)}`, `${hex((i + 1) % 16, 2)}:${hex(i % 100, 8)}`], false, i));
    expect(store.size).toBe(50_000);
    const probe = parseKeys(["01:00000063"]); // band 1, hash 99: d99's first key, and the second key of every i with i % 100 = 99 and band (i+1) % 16 = 1
    const ids = [...store.slots(probe, { hi: 0xffffffff, lo: 0 }, 0)].map((s) => store.idOf(s)!).sort();
    const want = Array.from({ length: 50_000 }, (_, i) => i)
      .filter((i) => (i % 16 === 1 && i === 99) || ((i + 1) % 16 === 1 && i % 100 === 99))
      .map((i) => `d${i}`)
      .sort();
    expect(ids).toEqual(want);
  });
});
