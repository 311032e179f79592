// Issue 10: the analysis path may get faster, never different. Every output of
// analyze() (normalized text, counts, vector, features, simhash, LSH keys,
// sketch) on ~1,900 texts must match the digests recorded before the changes.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createFingerprinter, FINGERPRINT_VERSION } from "../../../src/core/index.js";
import { analysisRecord, digest, goldenCorpus, GOLDEN_VARIANT, VARIANT_STEP } from "../../fixtures/golden-corpus.js";

interface GoldenCorpus {
  version: string;
  texts: number;
  digests: string[];
  variant: string[];
}

const golden = JSON.parse(readFileSync(new URL("../../fixtures/golden-corpus.json", import.meta.url), "utf8")) as GoldenCorpus;

/** Indices whose digest differs, with the first few texts named (an empty list when all match). */
function mismatches(texts: string[], got: string[], want: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) out.push(`#${i} ${JSON.stringify(texts[i]!.slice(0, 40))}`);
  return out;
}

describe("golden corpus: analyses bit-identical to the recorded ones (issue 10)", () => {
  const texts = goldenCorpus();

  it("is the corpus the digests were made from", () => {
    expect(golden.version).toBe(FINGERPRINT_VERSION);
    expect(texts.length).toBe(golden.texts);
    expect(new Set(texts).size).toBeGreaterThan(1800);
  });

  it("default fingerprinter, every text in order", async () => {
    const fp = await createFingerprinter();
    const got = texts.map((t) => digest(analysisRecord(fp.analyze(t))));
    expect(mismatches(texts, got, golden.digests)).toEqual([]);
  }, 60_000);

  it("128-bit simhash, 20x5 LSH, short texts below 1,000: every fifth text", async () => {
    const fp = await createFingerprinter(GOLDEN_VARIANT);
    const subset = texts.filter((_, i) => i % VARIANT_STEP === 0);
    const got = subset.map((t) => digest(analysisRecord(fp.analyze(t))));
    expect(mismatches(subset, got, golden.variant)).toEqual([]);
  }, 60_000);
});
