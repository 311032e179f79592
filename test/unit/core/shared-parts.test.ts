// Issue 14: texts that share only an opening or a closing are not near-duplicates.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import {
  charShingles,
  createFingerprinter,
  DEFAULT_VERDICT_OPTIONS,
  differingMiddle,
  jaccard,
  trigramJaccard,
  trigramSet,
  validateVerdictOptions,
  vetoedByMiddle,
  windowCoverage,
} from "../../../src/core/index.js";
import type { Fingerprinter, VerdictOptions } from "../../../src/core/index.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

const OPENING =
  "Welcome to the Weekly Garden Newsletter. Every week we bring you tips from our growers, news from the nursery, " +
  "and a short list of plants that are at their best right now. Reply to this message to reach the editors. " +
  "Our shop is open every day from nine to six, and members get a tenth off all seeds, bulbs and tools. " +
  "Classes in pruning, grafting and composting start again in the autumn; book early, places are few. " +
  "If a friend forwarded this letter, you can sign up on our website to get it every Friday morning. ";
const BODY_A = "This week: tomatoes. Stake them early, water at the root in the morning, and pinch out side shoots.";
const BODY_B = "This month the orchard: thin apples to one fruit per cluster and net the cherries against birds.";

describe("shared-part veto (rule <bucket>.middle)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("a shared newsletter opening with two different bodies is not a duplicate, though edit similarity alone would say so", async () => {
    const a = OPENING + BODY_A;
    const b = OPENING + BODY_B;
    const v = fp.compare(a, b);
    expect(v).toMatchObject({ duplicate: false, rule: null, vetoed: "medium.middle" });
    const noVeto = await createFingerprinter({ verdict: { ...DEFAULT_VERDICT_OPTIONS, middleVeto: null } });
    expect(noVeto.compare(a, b)).toMatchObject({ duplicate: true, vetoed: null });
  });

  it("a truncated copy, a copy with a notice added and a copy with spread-out edits stay duplicates", () => {
    const text = OPENING + BODY_A;
    for (const other of [
      text.slice(0, Math.round(text.length * 0.92)),
      `${text} Sent from my phone.`,
      text.replace("tips", "advice").replace("morning", "evening").replace("straw", "hay"),
    ]) {
      expect(fp.compare(text, other)).toMatchObject({ duplicate: true, vetoed: null });
    }
  });

  it("a short differing middle (one changed word) is never vetoed: below minLength", () => {
    expect(vetoedByMiddle("the cat sat on the mat today", "the dog sat on the mat today", { minShare: 0.1, minLength: 8, maxSimilarity: 0.3 })).toBe(false);
  });

  it("validates the veto and the Jaccard rule, naming the field", () => {
    const bad = (o: unknown) => thrown(() => validateVerdictOptions(o as VerdictOptions));
    expect(bad({ ...DEFAULT_VERDICT_OPTIONS, middleVeto: { minShare: 2, minLength: 8, maxSimilarity: 0.3 } })).toMatchObject({
      code: "INVALID_CONFIG",
      field: "verdict.middleVeto.minShare",
    });
    expect(bad({ ...DEFAULT_VERDICT_OPTIONS, middleVeto: { minShare: 0.1, minLength: -1, maxSimilarity: 0.3 } }).field).toBe("verdict.middleVeto.minLength");
    expect(bad({ ...DEFAULT_VERDICT_OPTIONS, middleVeto: { minShare: 0.1, minLength: 8, maxSimilarity: 0.3, x: 1 } }).field).toBe("verdict.middleVeto.x");
    const buckets = DEFAULT_VERDICT_OPTIONS.buckets.map((b, i) => (i === 0 ? { ...b, minJaccard: 1.5 } : b));
    expect(bad({ buckets }).field).toBe("verdict.buckets[0].minJaccard");
  });
});

const text = fc.string({ unit: fc.constantFrom("a", "b", "c", " ", "中", "文"), maxLength: 40 });

describe("spread measures (properties)", () => {
  it("prefix + middle + suffix is each text; the middles never overlap; share in [0, 1]", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const m = differingMiddle(a, b);
        expect(a.slice(0, m.prefix)).toBe(b.slice(0, m.prefix));
        expect(a.slice(a.length - m.suffix)).toBe(b.slice(b.length - m.suffix));
        expect(m.prefix + m.middleA + m.suffix).toBe(a.length);
        expect(m.prefix + m.middleB + m.suffix).toBe(b.length);
        expect(m.middleA).toBeGreaterThanOrEqual(0);
        expect(m.middleB).toBeGreaterThanOrEqual(0);
        expect(m.share).toBeGreaterThanOrEqual(0);
        expect(m.share).toBeLessThanOrEqual(1);
        expect(m.similarity).toBeGreaterThanOrEqual(0);
        expect(m.similarity).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("a text and itself plus or minus a block at one end leave no middle on one side (share 0)", () => {
    fc.assert(
      fc.property(text, text, (a, extra) => {
        expect(differingMiddle(a, a + extra).share).toBe(0);
        expect(differingMiddle(extra + a, a).share).toBe(0);
      }),
    );
  });

  it("hashed 3-gram Jaccard equals the textbook set Jaccard of 3-shingles (BMP text)", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(trigramJaccard(a, b)).toBeCloseTo(jaccard(charShingles(a, 3), charShingles(b, 3)), 12);
      }),
    );
  });

  it("the middles' similarity is the textbook 3-shingle Jaccard of the two middles", () => {
    fc.assert(
      fc.property(text, text, text, text, (pre, x, y, post) => {
        const a = pre + x + post;
        const b = pre + y + post;
        const m = differingMiddle(a, b);
        const ma = a.slice(m.prefix, a.length - m.suffix);
        const mb = b.slice(m.prefix, b.length - m.suffix);
        const expected = ma === "" || mb === "" ? 1 : jaccard(charShingles(ma, 3), charShingles(mb, 3));
        expect(m.similarity).toBeCloseTo(expected, 12);
      }),
    );
  });

  it("window coverage of a text by its own 3-grams is 1, and always in [0, 1]", () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        if (a.length >= 3) expect(windowCoverage(a, trigramSet(a))).toBe(1);
        const c = windowCoverage(a, trigramSet(b));
        expect(c).toBeGreaterThanOrEqual(0);
        expect(c).toBeLessThanOrEqual(1);
      }),
    );
  });
});
