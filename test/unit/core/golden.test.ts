// Pins fingerprint version nd2: a change here changes every stored fingerprint.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { createFeatureHasher, FINGERPRINT_VERSION, simhash128, simhash64, toHex, toHex128 } from "../../../src/core/index.js";
import type { FeatureHasher, Fingerprinter } from "../../../src/core/index.js";
import { defaultFingerprinter } from "./helpers.js";

interface Golden {
  version: string;
  xxh64: { input: string; seed0: string; seed1: string }[];
  features: { features: [string, number][]; simhash64: string; simhash128: string }[];
  texts: { text: string; normalized: string; tokens: string[]; short: boolean; simhash64: string; segments: string[] }[];
}

const golden = JSON.parse(readFileSync(new URL("../../fixtures/golden-simhash.json", import.meta.url), "utf8")) as Golden;

describe("golden simhash vectors (nd2)", () => {
  let hasher: FeatureHasher;
  let fp: Fingerprinter;
  beforeAll(async () => {
    hasher = await createFeatureHasher();
    fp = await defaultFingerprinter();
  });

  it("is the current version", () => {
    expect(golden.version).toBe(FINGERPRINT_VERSION);
  });

  it("XXH64 of UTF-8 bytes, seeds 0 and 1", () => {
    // Published XXH64 test value: the empty input with seed 0.
    expect(golden.xxh64[0]).toMatchObject({ input: "", seed0: "ef46db3751d8e999" });
    for (const g of golden.xxh64) {
      expect(toHex(hasher.hash(g.input, 0))).toBe(g.seed0);
      expect(toHex(hasher.hash(g.input, 1))).toBe(g.seed1);
      expect(toHex(hasher.hashUncached!(g.input))).toBe(g.seed0); // the term cache's and bigram table's path
    }
  });

  it("simhash of weighted features", () => {
    for (const g of golden.features) {
      expect(toHex(simhash64(g.features, hasher))).toBe(g.simhash64);
      expect(toHex128(simhash128(g.features, hasher))).toBe(g.simhash128);
    }
  });

  it("whole pipeline: normalization, tokens and fingerprint of texts", () => {
    for (const g of golden.texts) {
      const a = fp.analyze(g.text);
      expect(a.normalized).toBe(g.normalized);
      expect(fp.tokenize(g.text)).toEqual(g.tokens);
      expect(a.short).toBe(g.short);
      expect(a.hex).toBe(g.simhash64);
      expect(a.segments).toEqual(g.segments);
    }
  });
});
