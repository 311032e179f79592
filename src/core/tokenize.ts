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
 * `cut(text, true)`, HMM on). Only its tokens made only of Han characters are
 * used; every maximal stretch of other tokens is concatenated back and
 * segmented by UAX #29 word boundaries instead.
 */
export type HanSegmenter = (text: string) => string[];

const HAN_ONLY = /^\p{Script=Han}+$/u;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const ENDS_WITH_ALNUM = /[\p{L}\p{N}]$/u;

/** Word boundaries for non-Han text; the locale is fixed so results never depend on the host. */
const wordSegmenter = new Intl.Segmenter("en", { granularity: "word" });

/**
 * One ASCII word with only punctuation or spaces around it: UAX #29 would give
 * exactly that word (a letter/digit run never breaks inside; punctuation at an
 * edge has a letter on one side only, so it cannot join). Connector
 * punctuation (`_`, ExtendNumLet) is excluded because it does join.
 */
const SIMPLE_WORD = /^[\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{Z}]*([a-z0-9]+)([\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{Z}]*)$/u;

/**
 * Appends the UAX #29 words of `text` that contain a letter or digit to `out`.
 * Returns whether the last word ends at the very end of `text`.
 */
/** Characters UAX #29 attaches to a preceding space (Extend, Format, ZWJ, emoji modifiers). */
const ATTACHES_TO_SPACE = /[\p{M}\p{Cf}\p{Sk}]/u;

function pushWords(out: string[], text: string): boolean {
  const simple = SIMPLE_WORD.exec(text);
  if (simple !== null) {
    // Fast path, same result as the segmenter (a property test checks it).
    out.push(simple[1]!);
    return simple[2] === "";
  }
  if (text.includes(" ") && !ATTACHES_TO_SPACE.test(text)) {
    // Words never span a space unless a mark or modifier attaches to it (WB4),
    // so the pieces between spaces can be segmented one by one.
    const pieces = text.split(" ");
    let endsFlush = false;
    for (const p of pieces) endsFlush = p !== "" && HAS_WORD_CHAR.test(p) ? pushWords(out, p) : false;
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

/** The UAX #29 words of `text` that contain a letter or digit (the non-Han half of the tokenizer). */
export function unicodeWords(text: string): string[] {
  const out: string[] = [];
  pushWords(out, text);
  return out;
}

/** The tokenizer for mixed Chinese and other scripts described above. */
export function createMixedTokenizer(segmentHan: HanSegmenter): Tokenizer {
  return {
    tokenize(normalized: string): string[] {
      // One segmenter call over the whole text (native calls are the cost);
      // its Han tokens are kept, the text between them is re-segmented by UAX #29.
      const out: string[] = [];
      let other = "";
      let joinable = false; // the last token of `other` is a word ending flush with it
      let afterOther = false; // the current Han token is the first after non-Han text
      for (const w of segmentHan(normalized)) {
        if (isHanOnly(w)) {
          if (other !== "") {
            joinable = HAS_WORD_CHAR.test(other) && pushWords(out, other) && ENDS_WITH_ALNUM.test(out[out.length - 1]!);
            other = "";
            afterOther = true;
          }
          if (afterOther && joinable && isSingleCodePoint(w)) out[out.length - 1] += w;
          else out.push(w);
          afterOther = false;
          joinable = false;
        } else {
          other += w;
        }
      }
      if (other !== "" && HAS_WORD_CHAR.test(other)) pushWords(out, other);
      return out;
    },
  };
}

/** Whether a token consists of Han characters only (a loop for the common CJK block, the regex otherwise). */
function isHanOnly(w: string): boolean {
  const first = w.charCodeAt(0);
  if (first < 0x2e80) return false; // no Han character is below U+2E80
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 0x4e00 || c > 0x9fff) return HAN_ONLY.test(w);
  }
  return w.length > 0;
}

function isSingleCodePoint(w: string): boolean {
  return w.length === 1 || (w.length === 2 && w.charCodeAt(0) >= 0xd800 && w.charCodeAt(0) <= 0xdbff);
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
