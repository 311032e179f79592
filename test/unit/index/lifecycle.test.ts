// Expiry, removal, replacement, compaction and input validation.
import { describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { SegmentIndex } from "../../../src/index/index.js";
import { bruteForce, flipBits, randomFingerprint, rng } from "./random.js";
import type { ModelEntry } from "./random.js";

describe("expireBefore", () => {
  it("drops exactly the entries older than the cutoff, across chunk boundaries", () => {
    const next = rng(1);
    const index = new SegmentIndex();
    const model: ModelEntry[] = [];
    // 200k entries, 10 per time unit: spans several 65,536-entry chunks.
    for (let i = 0; i < 200_000; i++) {
      const e = { id: `d${i}`, fp: randomFingerprint(next), time: Math.floor(i / 10) };
      model.push(e);
      index.insert(e.id, e.fp, e.time);
    }
    expect(index.expireBefore(7_000)).toBe(70_000);
    expect(index.size).toBe(130_000);
    expect(index.has("d69999")).toBe(false);
    expect(index.get("d70000")).toEqual({ id: "d70000", fingerprint: model[70_000]!.fp, time: 7_000 });
    expect(index.expireBefore(7_000)).toBe(0);
    const live = model.slice(70_000);
    for (const e of [model[0]!, model[69_999]!, model[70_000]!, model[150_000]!]) {
      expect(index.lookup(e.fp, 3).map((m) => m.id)).toEqual(bruteForce(live, e.fp, 3).map(([id]) => id));
    }
    expect(index.expireBefore(Infinity)).toBe(130_000);
    expect(index.size).toBe(0);
    expect(index.lookup(model[199_999]!.fp, 8)).toEqual([]);
    // Usable again after everything expired.
    index.insert("again", model[0]!.fp, 30_000);
    expect(index.lookup(model[0]!.fp, 0).map((m) => m.id)).toEqual(["again"]);
    expect(index.has("d0")).toBe(false);
  });

  it("clamps an out-of-order time up to the latest seen: never expires early", () => {
    const index = new SegmentIndex();
    index.insert("a", { hi: 1, lo: 1 }, 100);
    index.insert("late", { hi: 2, lo: 2 }, 50);
    expect(index.get("late")?.time).toBe(100);
    expect(index.expireBefore(60)).toBe(0);
    expect(index.expireBefore(101)).toBe(2);
  });

  it("skips removed entries and counts only live ones", () => {
    const index = new SegmentIndex();
    for (let i = 0; i < 10; i++) index.insert(`x${i}`, { hi: i, lo: 0 }, i);
    index.remove("x2");
    index.remove("x3");
    expect(index.expireBefore(5)).toBe(3);
    expect(index.entries().map((e) => e.id)).toEqual(["x5", "x6", "x7", "x8", "x9"]);
  });
});

describe("remove and replace", () => {
  it("remove hides the entry from lookups and frees its id", () => {
    const index = new SegmentIndex();
    const fp = { hi: 0xdeadbeef, lo: 0x01234567 };
    index.insert("a", fp, 1);
    index.insert("b", flipBits(fp, 2, rng(3)), 2);
    expect(index.remove("a")).toBe(true);
    expect(index.remove("a")).toBe(false);
    expect(index.remove("never")).toBe(false);
    expect(index.lookup(fp, 3).map((m) => m.id)).toEqual(["b"]);
    index.insert("a", fp, 3);
    expect(index.lookup(fp, 3).map((m) => [m.id, m.distance])).toEqual([
      ["a", 0],
      ["b", 2],
    ]);
  });

  it("inserting an existing id replaces its fingerprint and time", () => {
    const index = new SegmentIndex();
    index.insert("a", { hi: 1, lo: 1 }, 1);
    index.insert("a", { hi: 0xffffffff, lo: 0xffffffff }, 2);
    expect(index.size).toBe(1);
    expect(index.lookup({ hi: 1, lo: 1 }, 3)).toEqual([]);
    expect(index.get("a")).toEqual({ id: "a", fingerprint: { hi: 0xffffffff, lo: 0xffffffff }, time: 2 });
  });

  it("many replacements trigger compaction without losing entries", () => {
    const next = rng(9);
    const index = new SegmentIndex();
    const latest = new Map<string, ModelEntry>();
    for (let i = 0; i < 300_000; i++) {
      const id = `k${i % 1000}`;
      const e = { id, fp: randomFingerprint(next), time: i };
      latest.delete(id);
      latest.set(id, e);
      index.insert(id, e.fp, e.time);
    }
    expect(index.size).toBe(1000);
    const model = [...latest.values()];
    expect(index.entries()).toEqual(model.map((e) => ({ id: e.id, fingerprint: e.fp, time: e.time })));
    for (const e of model.slice(0, 50)) {
      expect(index.lookup(e.fp, 4).map((m) => m.id)).toEqual(bruteForce(model, e.fp, 4).map(([id]) => id));
    }
  });
});

describe("validation", () => {
  const index = new SegmentIndex();
  const cases: Array<[string, () => unknown, string]> = [
    ["empty id", () => index.insert("", { hi: 0, lo: 0 }, 0), "id must be a string of 1..4096 characters"],
    ["negative half", () => index.insert("a", { hi: -1, lo: 0 }, 0), "uint32 halves"],
    ["fractional half", () => index.insert("a", { hi: 0, lo: 1.5 }, 0), "uint32 halves"],
    ["NaN time", () => index.insert("a", { hi: 0, lo: 0 }, NaN), "time must be a finite number, got NaN"],
    ["radius 65", () => index.lookup({ hi: 0, lo: 0 }, 65), "radius must be an integer in 0..64, got 65"],
    ["radius 2.5", () => index.lookup({ hi: 0, lo: 0 }, 2.5), "got 2.5"],
  ];
  for (const [name, run, message] of cases) {
    it(`refuses ${name} with INVALID_INPUT`, () => {
      expect(run).toThrow(NeardupError);
      expect(run).toThrow(message);
      try {
        run();
      } catch (err) {
        expect((err as NeardupError).code).toBe("INVALID_INPUT");
      }
    });
  }
  it("handles ids with any characters, and many of them (id table growth)", () => {
    const ix = new SegmentIndex();
    const ids = ["中文 id", "emoji 😀", "a\nb", ...Array.from({ length: 5000 }, (_, i) => `n${i}`)];
    ids.forEach((id, i) => ix.insert(id, { hi: i, lo: i }, i));
    for (const [i, id] of ids.entries()) expect(ix.get(id)?.fingerprint).toEqual({ hi: i, lo: i });
    for (const id of ids.slice(0, 2500)) expect(ix.remove(id)).toBe(true);
    for (const id of ids.slice(2500)) expect(ix.has(id)).toBe(true);
    expect(ix.size).toBe(ids.length - 2500);
  });
});
