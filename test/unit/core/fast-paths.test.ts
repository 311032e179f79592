// The simhash fast paths against the plain code they replace (fast-check):
// nibble-table sums vs the per-bit loop, the typed-array bigram table vs the
// Map of bigram features, and analyze() vs simhash64 of its feature Map.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { addBigramFeatures, createFeatureHasher, simhash64 } from "../../../src/core/index.js";
import type { FeatureHasher, Fingerprint, Fingerprinter } from "../../../src/core/index.js";
import { createBigramTable } from "../../../src/core/bigram-table.js";
import { accumulate, signBits, SimhashAccumulator } from "../../../src/core/simhash-accumulator.js";
import { defaultFingerprinter } from "./helpers.js";

const u32 = fc.integer({ min: 0, max: 0xffffffff });
/** Quantized weights: mostly realistic, sometimes so large that float64 sums round (>= 2^53 in total). */
const q = fc.oneof(fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }).map((x) => x * 64));

/** The per-bit loop of spec §6 in feature order (the implementation before the nibble tables). */
function perBit(features: [number, number, number][]): Fingerprint {
  const s = new Float64Array(64);
  let total = 0;
  for (const [hi, lo, w] of features) {
    total += w;
    accumulate(s, 0, hi, lo, w);
  }
  return { hi: signBits(s, 32, total), lo: signBits(s, 0, total) };
}

const chars = ["中", "文", "字", "a", "b", "1", " ", "，", "😀", "𠀀", "\u0000", "-"];
const text = (maxLength: number) => fc.string({ unit: fc.constantFrom(...chars), minLength: 1, maxLength });

describe("simhash fast paths", () => {
  let hasher: FeatureHasher;
  let fp: Fingerprinter;
  beforeAll(async () => {
    hasher = await createFeatureHasher();
    fp = await defaultFingerprinter();
  });

  it("nibble-table sums give the per-bit loop's bits", () => {
    const acc = new SimhashAccumulator();
    fc.assert(
      fc.property(fc.array(fc.tuple(u32, u32, q), { maxLength: 3000 }), (features) => {
        acc.reset();
        for (const [hi, lo, w] of features) acc.add(hi, lo, w);
        expect(acc.result()).toEqual(perBit(features));
      }),
      { numRuns: 200 },
    );
  });

  it("the bigram table gives the bigram features of addBigramFeatures, across table clears", () => {
    // 2^5 slots, cleared at 16 keys: texts up to 16 code units, longer ones are refused.
    const table = createBigramTable(hasher, 5);
    const acc = new SimhashAccumulator();
    fc.assert(
      fc.property(fc.array(text(20), { minLength: 1, maxLength: 8 }), fc.double({ min: 0.5, max: 20, noNaN: true }), (texts, idf) => {
        for (const t of texts) {
          acc.reset();
          if (table.addBigrams(acc, t, idf)) {
            expect(acc.result()).toEqual(simhash64(addBigramFeatures(new Map(), t, idf), hasher));
          } else {
            expect(t.length > 16 || /[\uD800-\uDFFF]/.test(t) || t.includes("\u0000") || t.replaceAll(" ", "").length <= 1).toBe(true);
          }
        }
      }),
    );
  });

  it("analyze's simhash is simhash64 of its feature Map, short and long texts", () => {
    fc.assert(
      fc.property(text(400).filter((t) => t.trim() !== "" && !t.includes("\u0000")), (t) => {
        let a;
        try {
          a = fp.analyze(t);
        } catch {
          return; // nothing visible after normalization
        }
        expect(a.simhash).toEqual(simhash64(a.features, hasher));
      }),
      { numRuns: 200 },
    );
  });
});
