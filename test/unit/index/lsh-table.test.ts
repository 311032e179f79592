import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LshTable } from "../../../src/index/index.js";

describe("LshTable", () => {
  it("finds every id sharing a key and nothing else, after adds, replacements and removals, a key listed twice included (model test)", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), id: fc.integer({ min: 0, max: 9 }), keys: fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 5 }) }),
      fc.record({ kind: fc.constant("remove" as const), id: fc.integer({ min: 0, max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.uniqueArray(fc.integer({ min: 0, max: 15 }), { maxLength: 4 }), (ops, query) => {
        const table = new LshTable();
        const model = new Map<string, string[]>();
        const key = (k: number) => `0${k % 2}:${k.toString(16).padStart(8, "0")}`;
        for (const o of ops) {
          if (o.kind === "add") {
            table.add(String(o.id), o.keys.map(key));
            if (o.keys.length > 0) model.set(String(o.id), o.keys.map(key));
            else model.delete(String(o.id));
          } else {
            table.remove(String(o.id));
            model.delete(String(o.id));
          }
        }
        const q = query.map(key);
        const expected = [...model].filter(([, ks]) => ks.some((k) => q.includes(k))).map(([id]) => id).sort();
        expect([...table.lookup(q)].sort()).toEqual(expected);
        expect(table.size).toBe(model.size);
      }),
      { numRuns: 1000 },
    );
  });
});
