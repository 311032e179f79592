// The original a duplicate points at (issue 14: one rule for the service and the CLI), against a naive reference.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byTimeThenId, chooseRoot } from "../../../src/core/index.js";

interface Doc {
  id: string;
  time: number;
  duplicateOf: string | null;
}

const doc = fc.record({
  id: fc.string({ unit: fc.constantFrom("a", "b", "c", "1", "2"), minLength: 1, maxLength: 3 }),
  time: fc.integer({ min: 0, max: 5 }),
  duplicateOf: fc.option(fc.constantFrom("root-1", "root-2"), { nil: null }),
});

describe("chooseRoot", () => {
  it("picks the earliest by time then id (as a full sort would), and resolves it to its original", () => {
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 8 }), (docs: Doc[]) => {
        const chosen = chooseRoot(docs, (d) => d.duplicateOf);
        if (docs.length === 0) {
          expect(chosen).toBeUndefined();
          return;
        }
        const first = [...docs].sort(byTimeThenId)[0]!;
        expect(byTimeThenId(chosen!.earliest, first)).toBe(0);
        expect(chosen!.originalId).toBe(chosen!.earliest.duplicateOf ?? chosen!.earliest.id);
      }),
    );
  });

  it("examples: time first, then id in string order; an empty duplicate_of is no pointer", () => {
    const docs = [
      { id: "b", time: 1, duplicateOf: null },
      { id: "a", time: 2, duplicateOf: null },
      { id: "10", time: 1, duplicateOf: "root" },
    ];
    expect(chooseRoot(docs, (d) => d.duplicateOf)).toMatchObject({ earliest: { id: "10" }, originalId: "root" });
    expect(chooseRoot([{ id: "x", time: 0, duplicateOf: "" }], (d) => d.duplicateOf)?.originalId).toBe("x");
  });
});
