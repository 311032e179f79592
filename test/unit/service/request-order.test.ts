// An id sent more than once in one request keeps the order sent; everything else keeps its place.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keepRequestOrderPerId } from "../../../src/service/dedup-service.js";


describe("keepRequestOrderPerId", () => {
  it("gives an id's places in the decision order to its occurrences in the order sent", () => {
    const docs = [{ id: "x" }, { id: "a" }, { id: "x" }, { id: "b" }, { id: "x" }];
    const order = [4, 1, 2, 3, 0]; // by time: the last x sent is the earliest
    keepRequestOrderPerId(order, docs);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it("is a permutation that keeps other ids in place and each id's places, with its occurrences in request order", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 }).chain((ids) => fc.tuple(fc.constant(ids), fc.shuffledSubarray(ids.map((_, i) => i), { minLength: ids.length, maxLength: ids.length }))), ([ids, shuffled]) => {
        const docs = ids.map((id) => ({ id }));
        const order = [...shuffled];
        keepRequestOrderPerId(order, docs);
        expect([...order].sort((a, b) => a - b)).toEqual(ids.map((_, i) => i));
        order.forEach((position, slot) => expect(docs[position]!.id).toBe(docs[shuffled[slot]!]!.id)); // each place keeps its id
        for (const id of new Set(ids)) {
          const mine = order.filter((p) => docs[p]!.id === id);
          expect(mine).toEqual([...mine].sort((a, b) => a - b));
        }
      }),
    );
  });
});
