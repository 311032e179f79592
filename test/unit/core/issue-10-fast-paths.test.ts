// Issue 10: the cheaper analysis path against the code it replaced, kept here
// verbatim as the reference: the tokenizer (offsets and class tables instead of
// string building and Unicode-property regexes, memoized segmenter), normalize
// (steps 3-4 without regexes for plain text) and the MinHash signature in
// WebAssembly SIMD. Outputs must be identical; golden-corpus.test.ts checks
// whole analyses on real text.
import fc from "fast-check";
import { foldChineseVariants } from "../../../src/core/chinese-variants.js";
import { stripDecorations } from "../../../src/core/decorations.js";
import { stripMarkup, stripUrlQueries } from "../../../src/core/markup.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createMixedTokenizer, normalize } from "../../../src/core/index.js";
import type { HanSegmenter } from "../../../src/core/index.js";
import { minhashSignature, permutationSeeds } from "../../../src/core/lsh.js";
import { createSimdMinhasher } from "../../../src/core/minhash-simd.js";
import { loadJiebaResources } from "../../../src/resources/jieba.js";
import * as jieba from "nodejs-jieba";

// ---- The reference: src/core/normalize.ts and src/core/tokenize.ts before issue 10's changes.
/** The spec's steps one by one (§2); markup, URL queries, the Chinese fold and decorations are their own modules' (tested apart). */
function referenceNormalize(text: string): string {
  return stripDecorations(foldChineseVariants(stripUrlQueries(stripMarkup(text)).normalize("NFKC").toLowerCase()))
    .replace(/[\t\n\v\f\r\u0085]/g, " ")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .replace(/\s+/g, " ")
    .trim();
}

const HAN_ONLY = /^\p{Script=Han}+$/u;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const ENDS_WITH_ALNUM = /[\p{L}\p{N}]$/u;
const wordSegmenter = new Intl.Segmenter("en", { granularity: "word" });
const SIMPLE_WORD = /^[\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{Z}]*([a-z0-9]+)([\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{Z}]*)$/u;
const ATTACHES_TO_SPACE = /[\p{M}\p{Cf}\p{Sk}]/u;

function pushWords(out: string[], text: string): boolean {
  const simple = SIMPLE_WORD.exec(text);
  if (simple !== null) {
    out.push(simple[1]!);
    return simple[2] === "";
  }
  if (text.includes(" ") && !ATTACHES_TO_SPACE.test(text)) {
    let endsFlush = false;
    for (const p of text.split(" ")) endsFlush = p !== "" && HAS_WORD_CHAR.test(p) ? pushWords(out, p) : false;
    return endsFlush;
  }
  let endsFlush = false;
  for (const s of wordSegmenter.segment(text)) {
    if (HAS_WORD_CHAR.test(s.segment)) {
      out.push(s.segment);
      endsFlush = s.index + s.segment.length === text.length;
    } else {
      endsFlush = false;
    }
  }
  return endsFlush;
}

function isHanOnly(w: string): boolean {
  const first = w.charCodeAt(0);
  if (first < 0x2e80) return false;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 0x4e00 || c > 0x9fff) return HAN_ONLY.test(w);
  }
  return w.length > 0;
}

function referenceTokenize(segmentHan: HanSegmenter, normalized: string): string[] {
  const out: string[] = [];
  let other = "";
  let joinable = false;
  let afterOther = false;
  for (const w of segmentHan(normalized)) {
    if (isHanOnly(w)) {
      if (other !== "") {
        joinable = HAS_WORD_CHAR.test(other) && pushWords(out, other) && ENDS_WITH_ALNUM.test(out[out.length - 1]!);
        other = "";
        afterOther = true;
      }
      const single = w.length === 1 || (w.length === 2 && w.charCodeAt(0) >= 0xd800 && w.charCodeAt(0) <= 0xdbff);
      if (afterOther && joinable && single) out[out.length - 1] += w;
      else out.push(w);
      afterOther = false;
      joinable = false;
    } else {
      other += w;
    }
  }
  if (other !== "" && HAS_WORD_CHAR.test(other)) pushWords(out, other);
  return out;
}
// ---- end of the reference

/** Characters that exercise every branch: scripts, marks, modifiers, ZWJ, separators, spaces, controls, astral. */
const UNITS = [
  "中", "文", "区", "架", "𠀋", "a", "z", "q", "A", "0", "9", "é", "\u0301", "ß", "ǅ", "ⓐ", "Ⅻ", "²",
  " ", "  ", "\t", "\n", "\r", "\u000b", "\u0085", "\u00a0", "\u1680", "\u2003", "\u3000", "\u202f", "\u2028",
  "\u200b", "\u200d", "\u00ad", "\ufeff", "\u0600", "\u061c", "\u0000", "\u0007", "\u007f", "\u009f", "\ufff9",
  ".", ",", "'", "-", "_", ":", "/", "@", "#", "$", "^", "`", "“", "”", "，", "。", "、", "《", "》", "│", "─", "‧", "™", "©",
  "😀", "👍🏽", "🏽", "\ud800", "\udc00", "ｶ", "ア", "ー", "한", "ก", "α", "Ω", "٣",
];
const mixedText = fc.array(fc.constantFrom(...UNITS), { maxLength: 40 }).map((xs) => xs.join(""));

describe("issue 10: normalize fast path", () => {
  it("gives exactly the regex chain's result", () => {
    fc.assert(
      fc.property(mixedText, (t) => {
        expect(normalize(t)).toBe(referenceNormalize(t));
      }),
      { numRuns: 5000 },
    );
  });

  it("every BMP code unit, alone and between letters", () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      for (const t of [ch, `a${ch}b`, ` ${ch} `, `中${ch}${ch}文`]) expect(normalize(t)).toBe(referenceNormalize(t));
    }
  });
});

describe("issue 10: tokenizer fast paths", () => {
  let cut: HanSegmenter;
  beforeAll(async () => {
    await loadJiebaResources();
    cut = (t) => jieba.cut(t, true);
  });

  it("gives exactly the reference tokens, with jieba", () => {
    const tokenizer = createMixedTokenizer(cut);
    fc.assert(
      fc.property(mixedText, (t) => {
        const n = normalize(t);
        expect(tokenizer.tokenize(n)).toEqual(referenceTokenize(cut, n));
        // Second time: the memoized segmenter answers.
        expect(tokenizer.tokenize(n)).toEqual(referenceTokenize(cut, n));
      }),
      { numRuns: 3000 },
    );
  });

  it("gives exactly the reference tokens on text that was not normalized, with any cut", () => {
    // Arbitrary cuts (the tokenizer's only assumption: the tokens concatenate to the input).
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...UNITS), { maxLength: 4 }).map((xs) => xs.join("")), { maxLength: 20 }), (tokens) => {
        const text = tokens.join("");
        const segment: HanSegmenter = (t) => (t === text ? [...tokens] : [t]);
        expect(createMixedTokenizer(segment).tokenize(text)).toEqual(referenceTokenize(segment, text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("issue 10: MinHash in WebAssembly SIMD", () => {
  it("is available on this Node", () => {
    expect(createSimdMinhasher(permutationSeeds(48))).not.toBeNull();
  });

  it("gives the scalar signature for any number of permutations and shingles", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 300 }),
        fc.integer({ min: 0, max: 3 }),
        (k, hashes, extremes) => {
          // Values at the ends of the unsigned range, where a signed minimum would go wrong.
          const xs = [...hashes, ...[0, 0xffffffff, 0x80000000, 0x7fffffff].slice(0, extremes)];
          const seeds = permutationSeeds(k);
          const simd = createSimdMinhasher(seeds)!;
          const input = Uint32Array.from(xs);
          expect(simd.signature(input, new Uint32Array(k))).toEqual(minhashSignature(input, seeds));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("grows its memory for a long text, and keeps working after", () => {
    const seeds = permutationSeeds(48);
    const simd = createSimdMinhasher(seeds)!;
    const big = Uint32Array.from({ length: 300_000 }, (_, i) => Math.imul(i + 1, 0x9e3779b1) >>> 0);
    expect(simd.signature(big, new Uint32Array(48))).toEqual(minhashSignature(big, seeds));
    const small = Uint32Array.of(1, 2, 3);
    expect(simd.signature(small, new Uint32Array(48))).toEqual(minhashSignature(small, seeds));
  });
});
