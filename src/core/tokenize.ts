/**
 * Word segmentation, step 2 of the fingerprint algorithm (spec §3).
 *
 * Input is normalized text. Han text goes to a dictionary segmenter (jieba,
 * injected as `segmentHan` so that core does no I/O); every other script goes
 * to Unicode word boundaries (UAX #29 via `Intl.Segmenter`). Tokens without a
 * letter or digit (punctuation, spaces, symbols) are dropped.
 *
 * Mixed text rule: jieba leaves a single Han character after a digit or Latin
 * run on its own (`51区` -> `51` `区`, `9架` -> `9` `架`), which loses the name.
 * When a non-Han word ends exactly where a Han run starts (no space or
 * punctuation between them) and the segmenter's first token of that Han run is
 * a single character, the two are joined into one token (`51区`, `9架`,
 * `3.5元`, `b超`): a number or code followed by a measure word or a one-
 * character suffix names one thing.
 */

/** Splits text into word tokens. Implementations must be deterministic. */
export interface Tokenizer {
  tokenize(normalized: string): string[];
}

/**
 * Segments a string into tokens whose concatenation is the input (jieba's
 * `cut(text, true)`, HMM on). Only its tokens made of Han characters are used.
 */
export type HanSegmenter = (text: string) => string[];

const HAN_RUN = /\p{Script=Han}+/gu;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const ENDS_WITH_ALNUM = /[\p{L}\p{N}]$/u;

/** Word boundaries for non-Han text; the locale is fixed so results never depend on the host. */
const wordSegmenter = new Intl.Segmenter("en", { granularity: "word" });

function pushWords(out: string[], text: string): boolean {
  // Returns whether the last token pushed ends at the very end of `text`.
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

/** The tokenizer for mixed Chinese and other scripts described above. */
export function createMixedTokenizer(segmentHan: HanSegmenter): Tokenizer {
  return {
    tokenize(normalized: string): string[] {
      const out: string[] = [];
      let pos = 0;
      HAN_RUN.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = HAN_RUN.exec(normalized)) !== null) {
        const joinable = m.index > pos && pushWords(out, normalized.slice(pos, m.index)) && ENDS_WITH_ALNUM.test(out[out.length - 1]!);
        const words = segmentHan(m[0]);
        let first = 0;
        if (joinable && words.length > 0 && [...words[0]!].length === 1) {
          out[out.length - 1] += words[0]!;
          first = 1;
        }
        for (let i = first; i < words.length; i++) {
          const w = words[i]!;
          if (HAS_WORD_CHAR.test(w)) out.push(w);
        }
        pos = m.index + m[0].length;
      }
      if (pos < normalized.length) pushWords(out, normalized.slice(pos));
      return out;
    },
  };
}

/** A tokenizer using Unicode word boundaries only (no Han dictionary); for tests and non-Chinese corpora. */
export function createWordBoundaryTokenizer(): Tokenizer {
  return {
    tokenize(normalized: string): string[] {
      const out: string[] = [];
      pushWords(out, normalized);
      return out;
    },
  };
}
