/**
 * The text filters' bounds (core text-filter.ts) are never below the measures
 * they bound, stored (saturated) or exact, on either side: a pair they rule
 * out can never be one the edit or Jaccard rule calls duplicate.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editSimilarity, trigramJaccard } from "../../../src/core/similarity/index.js";
import { editSimilarityBound, FILTER_BYTES, readTextFilter, textFilterOf, textFilterOfText, trigramContainmentBound, trigramJaccardBound, writeTextFilter, type TextFilter } from "../../../src/core/text-filter.js";
import { trigramContainment } from "../../../src/core/similarity/spread.js";
import { sketchOf } from "../../../src/core/sketch.js";

/** The filter as a sketch stores it: counts saturated. */
function stored(text: string): TextFilter {
  const f = textFilterOf(text);
  const view = new DataView(new ArrayBuffer(FILTER_BYTES));
  writeTextFilter(f, view, 0);
  return readTextFilter(view, 0, f.length);
}

/** Texts over a small alphabet (many shared characters and 3-grams), CJK and astral code points and lone surrogates included. */
const alphabet = ["a", "b", "c", "天", "地", "人", "之", "\u{20000}", "\u{1f600}", "\ud800", " ", "，"];
const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 120 }).map((cs) => cs.join(""));
/** A text and an edit of it (substitutions, insertions, deletions), near-duplicates at every distance. */
const pair = fc.tuple(text, fc.array(fc.tuple(fc.nat(), fc.constantFrom(...alphabet), fc.constantFrom("sub", "ins", "del")), { maxLength: 12 })).map(([a, edits]) => {
  const cs = Array.from(a);
  for (const [at, c, op] of edits) {
    const i = cs.length === 0 ? 0 : at % cs.length;
    if (op === "sub" && cs.length > 0) cs[i] = c;
    else if (op === "del") cs.splice(i, 1);
    else cs.splice(i, 0, c);
  }
  return [a, cs.join("")] as const;
});

describe("text filter", () => {
  it("bounds edit similarity, trigram Jaccard and containment from above, exact or stored on either side", () => {
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(text, text)), ([a, b]) => {
        const edit = editSimilarity(a, b);
        const jaccard = trigramJaccard(a, b);
        const containment = trigramContainment(a, b);
        for (const [fa, fb] of [
          [textFilterOf(a), textFilterOf(b)],
          [stored(a), textFilterOf(b)],
          [textFilterOf(a), stored(b)],
          [stored(a), stored(b)],
        ] as const) {
          expect(editSimilarityBound(fa, fb)).toBeGreaterThanOrEqual(edit);
          expect(trigramJaccardBound(fa, fb)).toBeGreaterThanOrEqual(jaccard);
          expect(trigramContainmentBound(fa, fb)).toBeGreaterThanOrEqual(containment - 1e-12);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("stays a bound where stored counts saturate (a character over 255 times, both sides)", () => {
    const a = "天".repeat(400) + "地".repeat(10);
    const b = "天".repeat(300) + "人".repeat(100);
    for (const [fa, fb] of [
      [stored(a), stored(b)],
      [stored(a), textFilterOf(b)],
    ] as const) {
      expect(editSimilarityBound(fa, fb)).toBeGreaterThanOrEqual(editSimilarity(a, b));
      expect(trigramJaccardBound(fa, fb)).toBeGreaterThanOrEqual(trigramJaccard(a, b));
    }
    expect(editSimilarityBound(stored(a), stored(a))).toBe(1);
  });

  it("is tight enough to rule out unrelated texts and keeps identical ones", () => {
    const a = "床前明月光，疑是地上霜。举头望明月，低头思故乡。".repeat(8);
    const b = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。".repeat(8);
    expect(editSimilarityBound(stored(a), textFilterOf(b))).toBeLessThan(0.5);
    expect(trigramJaccardBound(stored(a), textFilterOf(b))).toBeLessThan(0.5);
    expect(editSimilarityBound(stored(a), textFilterOf(a))).toBe(1);
    expect(trigramJaccardBound(stored(a), textFilterOf(a))).toBe(1);
  });

  it("builds a written text's filter once: its lookup's comparisons take the one its stored sketch was built with", () => {
    const texts = Array.from({ length: 100 }, (_, i) => `第${i}篇。` + "床前明月光，疑是地上霜。举头望明月，低头思故乡。".repeat(14));
    // A chunk: every stored sketch first, then each lookup compares its own text (sketch.ts `filterOf`).
    const stored = texts.map((t) => sketchOf({ normalized: t, length: Array.from(t).length, vector: new Map([["明月", 1]]) }).filter!);
    texts.forEach((t, i) => {
      const again = textFilterOfText(t);
      expect(again).toBe(stored[i]);
      expect(again).toEqual(textFilterOf(t));
    });
  });
});
