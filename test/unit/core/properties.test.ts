// Property tests against naive reference implementations (fast-check).
import fc from "fast-check";
import { textbookLevenshtein } from "../../../bench/core.js";
import { beforeAll, describe, expect, it } from "vitest";
import {
  cosine,
  createFeatureHasher,
  editSimilarity,
  hamming,
  hammingDistances,
  joinSegments,
  levenshtein,
  segmentNeighbours,
  segmentRadius,
  segments,
  segmentValues,
  simhash64,
  charCosine,
  shingleJaccard,
} from "../../../src/core/index.js";
import type { FeatureHasher, Fingerprint } from "../../../src/core/index.js";

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const fingerprint = fc.record({ hi: u32, lo: u32 });

function hammingBitByBit(a: Fingerprint, b: Fingerprint): number {
  let d = 0;
  for (let i = 0; i < 32; i++) {
    if (((a.hi >>> i) & 1) !== ((b.hi >>> i) & 1)) d++;
    if (((a.lo >>> i) & 1) !== ((b.lo >>> i) & 1)) d++;
  }
  return d;
}

/** Flips the given bit positions (0..63) of a fingerprint. */
function flip(fp: Fingerprint, bits: number[]): Fingerprint {
  let { hi, lo } = fp;
  for (const b of bits) {
    if (b >= 32) hi ^= 1 << (b - 32);
    else lo ^= 1 << b;
  }
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

const distinctBits = (max: number) => fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: max });
const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "中", "文", "😀", "𠀀", " "), maxLength: 70 });
const sparse = fc.dictionary(fc.constantFrom("a", "b", "c", "d", "e", "f"), fc.double({ min: 0, max: 100, noNaN: true }));

describe("fingerprint properties", () => {
  it("hamming equals a bit-by-bit count", () => {
    fc.assert(fc.property(fingerprint, fingerprint, (a, b) => hamming(a, b) === hammingBitByBit(a, b)));
  });

  it("hammingDistances over an interleaved table equals a bit-by-bit count", () => {
    fc.assert(
      fc.property(fingerprint, fc.array(fingerprint, { maxLength: 50 }), (q, fps) => {
        const table = Uint32Array.from(fps.flatMap((f) => [f.hi, f.lo]));
        const out = new Uint8Array(fps.length);
        hammingDistances(table, q.hi, q.lo, out);
        expect([...out]).toEqual(fps.map((f) => hammingBitByBit(q, f)));
      }),
    );
  });

  it("segments join back to the fingerprint", () => {
    fc.assert(
      fc.property(fingerprint, (fp) => {
        expect(joinSegments(segments(fp))).toEqual(fp);
      }),
    );
  });

  it("any two fingerprints within distance 3 share a segment", () => {
    fc.assert(
      fc.property(fingerprint, distinctBits(3), (fp, bits) => {
        const other = flip(fp, bits);
        expect(hamming(fp, other)).toBe(bits.length);
        const a = segments(fp);
        const b = segments(other);
        expect(a.some((s, i) => s === b[i])).toBe(true);
      }),
    );
  });

  it("within distance r, some segment is within floor(r/4) bits, so it is among the neighbours", () => {
    fc.assert(
      fc.property(fingerprint, distinctBits(20), (fp, bits) => {
        const r = bits.length;
        const other = flip(fp, bits);
        const k = segmentRadius(r);
        expect(k).toBe(Math.floor(r / 4));
        const a = segmentValues(fp);
        const b = segmentValues(other);
        const found = a.some((s, i) => segmentNeighbours(s, k).includes(b[i]!));
        expect(found).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("segment neighbours are exactly the values within k bits, each once", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 3 }), (seg, k) => {
        const n = segmentNeighbours(seg, k);
        expect(new Set(n).size).toBe(n.length);
        let expected = 0;
        for (let v = 0; v <= 0xffff; v++) {
          if (hamming({ hi: 0, lo: v }, { hi: 0, lo: seg }) <= k) expected++;
        }
        expect(n.length).toBe(expected);
        expect(n.every((v) => hamming({ hi: 0, lo: v }, { hi: 0, lo: seg }) <= k)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });
});

describe("similarity properties", () => {
  it("levenshtein equals the textbook DP (code points, astral characters included)", () => {
    fc.assert(fc.property(text, text, (a, b) => levenshtein(a, b) === textbookLevenshtein(a, b)), { numRuns: 500 });
  });

  it("levenshtein equals the textbook DP on long strings (multi-block path)", () => {
    const long = fc.string({ unit: fc.constantFrom("a", "b", "中", "😀"), minLength: 30, maxLength: 200 });
    fc.assert(fc.property(long, long, (a, b) => levenshtein(a, b) === textbookLevenshtein(a, b)), { numRuns: 100 });
  });

  it("levenshtein equals the textbook DP with a shared prefix and suffix (trimmed fast path, split surrogate pairs)", () => {
    // Lone surrogate halves as affix ends make the trim cut inside a pair.
    const affix = fc.string({ unit: fc.constantFrom("a", "中", "😀", "\uD83D", "\uDE00"), maxLength: 40 });
    fc.assert(
      fc.property(affix, text, text, affix, (p, a, b, s) => {
        const x = p + a + s;
        const y = p + b + s;
        if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(x + "\n" + y)) return;
        expect(levenshtein(x, y)).toBe(textbookLevenshtein(x, y));
      }),
      { numRuns: 1000 },
    );
  });

  it("edit similarity is in [0, 1] and 1 only for equal strings", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const s = editSimilarity(a, b);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(s === 1).toBe(a === b);
      }),
    );
  });

  it("cosine is symmetric and in [0, 1]", () => {
    fc.assert(
      fc.property(sparse, sparse, (x, y) => {
        const a = new Map(Object.entries(x));
        const b = new Map(Object.entries(y));
        const c = cosine(a, b);
        expect(c).toBe(cosine(b, a));
        expect(c).toBeGreaterThanOrEqual(0);
        expect(c).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("cosine is exactly symmetric for maps of equal size iterated in different orders (regression: CI run, fast-check seed)", () => {
    // Products 1, 2^-53, 2^-53: summed 1 first they round to 1, summed small first to 1 + 2^-52.
    const a = new Map([["x", 1], ["y", 2 ** -27], ["z", 2 ** -27]]);
    const b = new Map([["z", 2 ** -26], ["y", 2 ** -26], ["x", 1]]);
    expect(cosine(a, b)).toBe(cosine(b, a));
  });

  it("char cosine and shingle Jaccard are symmetric and in [0, 1]", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        for (const f of [charCosine, shingleJaccard]) {
          const s = f(a, b);
          expect(s).toBe(f(b, a));
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(1);
        }
      }),
    );
  });
});

describe("simhash properties", () => {
  let hasher: FeatureHasher;
  beforeAll(async () => {
    hasher = await createFeatureHasher();
  });

  it("ignores the order of features", () => {
    const features = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), fc.double({ min: 0, max: 50, noNaN: true })), {
      selector: (t) => t[0],
      maxLength: 40,
    });
    fc.assert(
      fc.property(features, (fs) => {
        const reversed = [...fs].reverse();
        const shuffled = [...fs].sort((x, y) => (x[1] - y[1]) || (x[0] < y[0] ? -1 : 1));
        const h = simhash64(fs, hasher);
        expect(simhash64(reversed, hasher)).toEqual(h);
        expect(simhash64(shuffled, hasher)).toEqual(h);
      }),
    );
  });

  it("a single feature's simhash is its hash", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (f) => {
        expect(simhash64([[f, 1]], hasher)).toEqual(hasher.hash(f));
      }),
    );
  });
});

describe("levenshtein with lone surrogates (outside the API, which refuses them)", () => {
  it("keeps a pair split by the affix trim in the middles: code points, not code units", () => {
    // Trimming "\ud800" and "\udc00" would take the whole pair of the second text and leave "a" against "".
    expect(levenshtein("\ud800a\udc00", "𐀀")).toBe(3);
    expect(levenshtein("\ud800a\udc00", "𐀀")).toBe(textbookLevenshtein("\ud800a\udc00", "𐀀"));
  });

  it("equals the textbook DP on code points whatever the surrogates (property)", () => {
    const unit = fc.constantFrom("a", "中", "😀", "\ud800", "\udc00", "\uD83D", "\uDE00");
    const any = fc.string({ unit, maxLength: 30 });
    fc.assert(fc.property(any, any, (a, b) => levenshtein(a, b) === textbookLevenshtein(a, b)), { numRuns: 3000 });
  });
});
