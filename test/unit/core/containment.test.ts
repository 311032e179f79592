// The containment rule (<bucket>.contained): a copy cut short, or with a paragraph added, from texts and from sketches.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, DEFAULT_VERDICT_OPTIONS, reportedSimilarity, validateVerdictOptions } from "../../../src/core/index.js";
import type { Fingerprinter, VerdictOptions } from "../../../src/core/index.js";
import { compareSketches, decodeSketch, encodeSketch, sketchOf } from "../../../src/core/sketch.js";
import { trigramContainment } from "../../../src/core/similarity/spread.js";
import { loadPoems } from "../../../bench/poems.js";
import { defaultFingerprinter, thrown } from "./helpers.js";

const withoutContainment: VerdictOptions = {
  ...DEFAULT_VERDICT_OPTIONS,
  buckets: DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, minContainment: null })),
};

/** The 3-grams `trigramContainment` compares, as a set (code units; a text under 3 units is one gram). */
function grams(s: string): Set<string> {
  if (s.length === 0) return new Set();
  if (s.length < 3) return new Set([s]);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= s.length; i++) out.add(s.slice(i, i + 3));
  return out;
}

/** Real text of about `chars` code points: poems joined. */
function realText(first: number, chars: number): string {
  const poems = loadPoems(1);
  let text = "";
  for (let i = first; Array.from(text).length < chars; i++) text += poems[i]!;
  return Array.from(text).slice(0, chars).join("");
}

/** The first `share` of a text, in code points. */
function firstPart(text: string, share: number): string {
  const cs = Array.from(text);
  return cs.slice(0, Math.round(cs.length * share)).join("");
}

describe("containment rule (<bucket>.contained)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await defaultFingerprinter();
  });

  it("trigramContainment is |A ∩ B| / min(|A|, |B|) of the 3-gram sets, symmetric", () => {
    const alphabet = ["a", "b", "c", "天", "地", "之", "\u{20000}", " "];
    const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }).map((cs) => cs.join(""));
    fc.assert(
      fc.property(text, text, fc.boolean(), (a, b, cut) => {
        const y = cut ? a.slice(0, Math.floor(a.length * 0.8)) : b;
        const ga = grams(a);
        const gb = grams(y);
        const smaller = Math.min(ga.size, gb.size);
        const expected = smaller === 0 ? 1 : [...ga].filter((g) => gb.has(g)).length / smaller;
        expect(trigramContainment(a, y)).toBeCloseTo(expected, 12);
        expect(trigramContainment(y, a)).toBe(trigramContainment(a, y));
      }),
      { numRuns: 2000 },
    );
  });

  it("calls a medium text's first 80% its duplicate; the other rules alone do not", async () => {
    const off = await createFingerprinter({ verdict: withoutContainment });
    for (const first of [0, 40, 80]) {
      const whole = realText(first, 400);
      const cut = firstPart(whole, 0.8);
      const v = fp.compare(whole, cut);
      expect(v, `poems from ${first}`).toMatchObject({ duplicate: true, rule: "medium.contained", bucket: "medium", vetoed: null, containment: 1 });
      expect(reportedSimilarity(v)).toBe(1);
      expect(off.compare(whole, cut), `poems from ${first}, rule off`).toMatchObject({ duplicate: false, rule: null });
    }
  });

  it("is not tried below minContainedShare of the longer text, nor in the tiny bucket", () => {
    const whole = realText(0, 400);
    const v = fp.compare(whole, firstPart(whole, 0.6));
    expect(v).toMatchObject({ duplicate: false, containment: null });
    const tiny = realText(0, 45);
    const t = fp.compare(tiny, firstPart(tiny, 0.8));
    expect(t.bucket).toBe("tiny");
    expect(t.containment ?? null).toBeNull();
    expect(t.rule ?? "").not.toMatch(/contained/);
  });

  it("does not hold when the shorter text was edited inside (a character in every 20 changed)", () => {
    const whole = realText(0, 400);
    const cs = Array.from(firstPart(whole, 0.8));
    for (let i = 10; i < cs.length; i += 20) cs[i] = "乙";
    const v = fp.compare(whole, cs.join(""));
    expect(v.containment).not.toBeNull();
    expect(v.containment!).toBeLessThan(0.98);
    expect(v.rule ?? "").not.toMatch(/contained/);
  });

  it("gives decide's verdict from sketches: inline texts, and long texts read only when the filters allow it", () => {
    // Inline: a short-bucket pair (both under 300 code points).
    const shortWhole = realText(7, 150);
    const shortCut = firstPart(shortWhole, 0.75);
    const [a, b] = [fp.analyze(shortWhole), fp.analyze(shortCut)];
    const inline = compareSketches({ simhash: a.simhash, sketch: sketchOf(a) }, { simhash: b.simhash, sketch: sketchOf(b) }, DEFAULT_VERDICT_OPTIONS, true);
    expect(inline).toMatchObject({ duplicate: true, rule: "short.contained", containment: 1 });
    // Long: stored sketches carry a filter, not the text; the filters cannot rule the pair out, so the text is asked for.
    const longWhole = realText(3, 2000);
    const longCut = firstPart(longWhole, 0.72);
    const [x, y] = [fp.analyze(longWhole), fp.analyze(longCut)];
    const stored = (s: ReturnType<typeof sketchOf>) => decodeSketch(encodeSketch(s));
    const sx = stored(sketchOf(x));
    const sy = stored(sketchOf(y));
    expect(sx.text).toBeUndefined();
    expect(compareSketches({ simhash: x.simhash, sketch: sx }, { simhash: y.simhash, sketch: sy }, DEFAULT_VERDICT_OPTIONS, true)).toBeUndefined();
    sx.text = x.normalized;
    sy.text = y.normalized;
    const long = compareSketches({ simhash: x.simhash, sketch: sx }, { simhash: y.simhash, sketch: sy }, DEFAULT_VERDICT_OPTIONS, true);
    expect(long).toMatchObject({ duplicate: true, rule: "long.contained" });
    expect(fp.compare(longWhole, longCut)).toMatchObject({ duplicate: true, rule: "long.contained" });
    // Unrelated long texts: the filters settle the pair without its text.
    const other = fp.analyze(realText(900, 1800));
    const so = stored(sketchOf(other));
    expect(compareSketches({ simhash: x.simhash, sketch: stored(sketchOf(x)) }, { simhash: other.simhash, sketch: so }, DEFAULT_VERDICT_OPTIONS, true)).toMatchObject({ duplicate: false });
  });

  it("refuses minContainment without minContainedShare, and a share out of range, naming the field", () => {
    const bucket = (extra: object) => ({ buckets: [{ ...DEFAULT_VERDICT_OPTIONS.buckets[4]!, ...extra }] }) as VerdictOptions;
    expect(thrown(() => validateVerdictOptions(bucket({ minContainment: 0.9 })))).toMatchObject({ code: "INVALID_CONFIG", field: "verdict.buckets[0].minContainedShare" });
    expect(thrown(() => validateVerdictOptions(bucket({ minContainment: 0.9, minContainedShare: 1.5 })))).toMatchObject({ code: "INVALID_CONFIG", field: "verdict.buckets[0].minContainedShare" });
    expect(thrown(() => validateVerdictOptions(bucket({ minContainment: "high", minContainedShare: 0.7 })))).toMatchObject({ code: "INVALID_CONFIG", field: "verdict.buckets[0].minContainment" });
    expect(validateVerdictOptions(bucket({ minContainment: 0.9, minContainedShare: 0.7 })).buckets[0]!.minContainment).toBe(0.9);
  });
});
