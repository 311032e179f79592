// Pins the LSH key scheme lsh3 (docs/fingerprint-spec.md §9): a change here changes every stored band key.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blockKeys,
  createLshKeyer,
  DEFAULT_LSH_OPTIONS,
  estimateJaccard,
  LSH_SHINGLE_LENGTH,
  LSH_VERSION,
  minhashSignature,
  murmur3,
  normalize,
  permutationSeeds,
  shingleHashes,
  validateFingerprinterOptions,
  wordKeys,
  wordUnits,
} from "../../../src/core/index.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

interface Golden {
  version: string;
  shingleLength: number;
  murmur3: { input: string; seed: number; hash: string }[];
  permutationSeeds: string[];
  texts: { text: string; normalized: string; shingles: number; firstShingleHashes: string[]; units: string[]; wordKeys: string[]; blockKeys: string[]; keys: { bands: number; rows: number; keys: string[] }[] }[];
}

const golden = JSON.parse(readFileSync(new URL("../../fixtures/golden-lsh.json", import.meta.url), "utf8")) as Golden;
const hex = (h: number): string => h.toString(16).padStart(8, "0");
const encoder = new TextEncoder();

describe("golden LSH vectors (lsh3)", () => {
  it("is the current version and shingle length", () => {
    expect(golden.version).toBe(LSH_VERSION);
    expect(golden.shingleLength).toBe(LSH_SHINGLE_LENGTH);
  });

  it("MurmurHash3_x86_32 of UTF-8 bytes", () => {
    // Published test values of MurmurHash3_x86_32.
    const published: [string, number, number][] = [["", 0, 0], ["", 1, 0x514e28b7], ["hello", 0, 0x248bfa47], ["The quick brown fox jumps over the lazy dog", 0, 0x2e4ff723]];
    for (const [input, seed, hash] of published) {
      const bytes = encoder.encode(input);
      expect(murmur3(bytes, 0, bytes.length, seed)).toBe(hash);
    }
    for (const g of golden.murmur3) {
      const bytes = encoder.encode(g.input);
      expect(hex(murmur3(bytes, 0, bytes.length, g.seed))).toBe(g.hash);
    }
  });

  it("permutation seeds", () => {
    expect(Array.from(permutationSeeds(4), hex)).toEqual(golden.permutationSeeds);
  });

  it("shingles and band keys of texts", async () => {
    const fp = await defaultFingerprinter();
    for (const g of golden.texts) {
      expect(normalize(g.text)).toBe(g.normalized);
      const hashes = shingleHashes(g.normalized);
      expect(hashes.length).toBe(g.shingles);
      expect(Array.from(hashes.subarray(0, 3), hex)).toEqual(g.firstShingleHashes);
      expect(wordUnits(g.normalized)).toEqual(g.units);
      expect(wordKeys(g.normalized)).toEqual(g.wordKeys);
      expect(blockKeys(g.normalized)).toEqual(g.blockKeys);
      for (const { bands, rows, keys } of g.keys) {
        expect(createLshKeyer({ bands, rows }).keys(g.normalized)).toEqual(keys);
        expect(keys.slice(bands)).toEqual([...g.wordKeys, ...g.blockKeys]);
      }
      expect(fp.analyze(g.text).lsh).toEqual(g.keys[0]!.keys);
    }
  });
});

describe("LSH keys", () => {
  it("are one per band, BB:XXXXXXXX with the band index, then the word keys of a short text", async () => {
    const fp = await defaultFingerprinter();
    const long = fp.analyze("近似重复文本检测 near-duplicate detection, ".repeat(3)).lsh;
    expect(long).toHaveLength(DEFAULT_LSH_OPTIONS.bands);
    long.forEach((k, b) => expect(k).toMatch(new RegExp(`^${b.toString(16).padStart(2, "0")}:[0-9a-f]{8}$`)));
    const keys = fp.analyze("近似重复文本检测 near-duplicate detection").lsh;
    keys.slice(0, DEFAULT_LSH_OPTIONS.bands).forEach((k, b) => expect(k).toMatch(new RegExp(`^${b.toString(16).padStart(2, "0")}:[0-9a-f]{8}$`)));
    // 8 Han characters and 2 words: the whole and each of the 10 units left out.
    expect(keys.slice(DEFAULT_LSH_OPTIONS.bands)).toHaveLength(11);
    keys.slice(DEFAULT_LSH_OPTIONS.bands).forEach((k) => expect(k).toMatch(/^w:[0-9a-f]{16}$/));
    expect(createLshKeyer({ bands: 200, rows: 1 }).keys("abcdefg")[199]).toMatch(/^c7:[0-9a-f]{8}$/);
  });

  it("identical texts give identical keys; the keys are deterministic across keyers", async () => {
    const fp = await defaultFingerprinter();
    const text = "The quick brown fox jumps over the lazy dog, again and again.";
    expect(fp.analyze(text).lsh).toEqual(fp.analyze(text).lsh);
    expect(fp.analyze(text).lsh).toEqual(createLshKeyer().keys(normalize(text)));
    // Normalization-equivalent inputs give the same keys; band keys remove spaces before shingling.
    expect(fp.analyze("ＡＢＣ  def\tghi").lsh).toEqual(fp.analyze("abc def ghi").lsh);
    expect(fp.analyze("ＡＢＣ  def\tghi").lsh.slice(0, 16)).toEqual(fp.analyze("abc defghi").lsh.slice(0, 16));
  });

  it("do not depend on shingle order or repetition (MinHash is a set function)", () => {
    const seeds = permutationSeeds(48);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength: 200 }), fc.integer(), (values, shuffleSeed) => {
        const a = Uint32Array.from(values);
        const shuffled = [...values, ...values.slice(0, 5)];
        let s = shuffleSeed | 0;
        for (let i = shuffled.length - 1; i > 0; i--) {
          s = (Math.imul(s, 1103515245) + 12345) | 0;
          const j = (s >>> 8) % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        expect(minhashSignature(Uint32Array.from(shuffled), seeds)).toEqual(minhashSignature(a, seeds));
      }),
      { seed: 20260601, numRuns: 100 },
    );
  });

  it("estimate Jaccard within 0.16 of the exact value (256 permutations, about 5 standard deviations)", () => {
    const seeds = permutationSeeds(256);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 20, maxLength: 400 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, cut1, cut2) => {
          // A = values[0 .. hi), B = values[lo .. n): overlap values[lo .. hi).
          const n = values.length;
          const lo = Math.floor(Math.min(cut1, cut2) * n);
          const hi = Math.max(lo + 1, Math.ceil(Math.max(cut1, cut2) * n));
          const a = Uint32Array.from(values.slice(0, hi));
          const b = Uint32Array.from(values.slice(lo));
          const exact = (Math.min(hi, n) - lo) / n;
          const estimate = estimateJaccard(minhashSignature(a, seeds), minhashSignature(b, seeds));
          expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(0.16);
        },
      ),
      { seed: 20260601, numRuns: 200 },
    );
  });

  it("near-duplicate texts share a key, unrelated ones do not", async () => {
    const fp = await defaultFingerprinter();
    const a = "自然语言处理是计算机科学领域与人工智能领域中的一个重要方向。它研究能实现人与计算机之间用自然语言进行有效通信的各种理论和方法。";
    const b = a.replace("重要方向", "重要分支");
    const c = "今天天气很好，我们一起去公园散步，顺便买点水果回家吃。";
    const shared = (x: string[], y: string[]): number => x.filter((k) => y.includes(k)).length;
    expect(shared(fp.analyze(a).lsh, fp.analyze(b).lsh)).toBeGreaterThan(0);
    expect(shared(fp.analyze(a).lsh, fp.analyze(c).lsh)).toBe(0);
  });

  it("an empty shingle set gives no keys; a text shorter than a shingle is one shingle", () => {
    expect(createLshKeyer().keys("")).toEqual([]);
    expect(createLshKeyer().keys(" ")).toEqual([]);
    expect(shingleHashes("ab c")).toHaveLength(1);
    // 16 band keys and the word key of the whole text (one unit: none left out).
    expect(createLshKeyer().keys("ab")).toHaveLength(DEFAULT_LSH_OPTIONS.bands + 1);
  });

  it("is off with lsh: false", async () => {
    const { buildFingerprinter, createFeatureHasher } = await import("../../../src/core/index.js");
    const { loadJiebaResources } = await import("../../../src/resources/jieba.js");
    const fp = buildFingerprinter({ lsh: false }, await loadJiebaResources(), await createFeatureHasher());
    expect(fp.analyze("some text here").lsh).toEqual([]);
    const small = buildFingerprinter({ lsh: { bands: 4, rows: 2 } }, await loadJiebaResources(), await createFeatureHasher());
    expect(small.analyze("some text here").lsh).toEqual(createLshKeyer({ bands: 4, rows: 2 }).keys("some text here"));
    expect(small.analyze("some text here").lsh.slice(0, 4)).toEqual(createLshKeyer({ bands: 4, rows: 2 }).keys("sometexthere").slice(0, 4));
  });

  it("rejects bad options with INVALID_CONFIG naming the option", () => {
    const cases: [unknown, string, string][] = [
      [{ bands: 0, rows: 3 }, "lsh.bands", "lsh.bands must be an integer in 1..256, got 0"],
      [{ bands: 257, rows: 3 }, "lsh.bands", "lsh.bands must be an integer in 1..256, got 257"],
      [{ bands: 16, rows: 1.5 }, "lsh.rows", "lsh.rows must be an integer in 1..16, got 1.5"],
      [{ bands: 16 }, "lsh.rows", "lsh.rows must be an integer in 1..16, got undefined"],
      [{ bands: 16, rows: 3, seed: 1 }, "lsh.seed", "unknown option lsh.seed"],
      [true, "lsh", "lsh must be false or an object {bands, rows}, got true"],
      [null, "lsh", "lsh must be false or an object {bands, rows}, got null"],
    ];
    for (const [lsh, field, message] of cases) {
      expect(thrown(() => validateFingerprinterOptions({ lsh } as never))).toMatchObject({ code: "INVALID_CONFIG", field, message });
    }
    expect(() => validateFingerprinterOptions({ lsh: false })).not.toThrow();
    expect(() => validateFingerprinterOptions({ lsh: { bands: 8, rows: 2 } })).not.toThrow();
  });
});
