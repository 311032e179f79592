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
const SIMPLE_EDGE = /^[\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{Z}]$/u;

/** Characters UAX #29 attaches to a preceding space (Extend, Format, ZWJ, emoji modifiers). */
const ATTACHES_TO_SPACE = /[\p{M}\p{Cf}\p{Sk}]/u;

/**
 * Character classes of BMP code units, filled on first sight from the regexes
 * above (each a property of one code point, so a table of code units outside
 * the surrogate range answers exactly as the regex would): the hot loops test
 * a table entry instead of running a Unicode-property regex over each string.
 * Surrogates are never classified; strings holding them take the regexes.
 */
const KNOWN = 1;
/** `\p{L}` or `\p{N}`. */
const WORD = 2;
/** An edge character of `SIMPLE_WORD` (dash, open/close/initial/final/other punctuation, separator). */
const EDGE = 4;
/** `ATTACHES_TO_SPACE`. */
const ATTACHES = 8;
/** ASCII lower-case letter or digit (the core of `SIMPLE_WORD`). */
const LOWER_ALNUM = 16;
const classes = new Uint8Array(0x10000);

function classify(c: number): number {
  const ch = String.fromCharCode(c);
  let k = KNOWN;
  if (HAS_WORD_CHAR.test(ch)) k |= WORD;
  if (SIMPLE_EDGE.test(ch)) k |= EDGE;
  if (ATTACHES_TO_SPACE.test(ch)) k |= ATTACHES;
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)) k |= LOWER_ALNUM;
  classes[c] = k;
  return k;
}

/** The classes of code unit `c` (not a surrogate). */
function classOf(c: number): number {
  const k = classes[c]!;
  return k === 0 ? classify(c) : k;
}

function isSurrogate(c: number): boolean {
  return (c & 0xf800) === 0xd800;
}

/** `HAS_WORD_CHAR.test(text.slice(from, to))`. */
function hasWordChar(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (isSurrogate(c)) return HAS_WORD_CHAR.test(text.slice(from, to));
    if ((classOf(c) & WORD) !== 0) return true;
  }
  return false;
}

/** `ENDS_WITH_ALNUM.test(w)`. */
function endsWithAlnum(w: string): boolean {
  const c = w.charCodeAt(w.length - 1);
  if (w.length === 0) return false;
  if (isSurrogate(c)) return ENDS_WITH_ALNUM.test(w);
  return (classOf(c) & WORD) !== 0;
}

/**
 * `SIMPLE_WORD.exec(text)` as [start, end) of the word, or null: edge
 * characters, then a run of [a-z0-9], then edge characters to the end.
 */
function simpleWord(text: string): [number, number] | null {
  const n = text.length;
  let i = 0;
  let c = 0;
  for (; i < n; i++) {
    c = text.charCodeAt(i);
    if (isSurrogate(c)) return simpleWordByRegex(text);
    const k = classOf(c);
    if ((k & LOWER_ALNUM) !== 0) break;
    if ((k & EDGE) === 0) return null;
  }
  if (i === n) return null;
  const start = i;
  while (i < n && (classOf((c = text.charCodeAt(i))) & LOWER_ALNUM) !== 0) i++;
  const end = i;
  for (; i < n; i++) {
    c = text.charCodeAt(i);
    if (isSurrogate(c)) return simpleWordByRegex(text);
    if ((classOf(c) & EDGE) === 0) return null;
  }
  return [start, end];
}

function simpleWordByRegex(text: string): [number, number] | null {
  const m = SIMPLE_WORD.exec(text);
  if (m === null) return null;
  const start = text.length - m[2]!.length - m[1]!.length;
  return [start, start + m[1]!.length];
}

/** `text.includes(" ") && !ATTACHES_TO_SPACE.test(text)`. */
function splitsAtSpaces(text: string): boolean {
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) space = true;
    else if (isSurrogate(c)) return text.includes(" ") && !ATTACHES_TO_SPACE.test(text);
    else if ((classOf(c) & ATTACHES) !== 0) return false;
  }
  return space;
}

/**
 * The segmenter's answers for strings seen before (`Intl.Segmenter` costs
 * tens of µs a call; the same code, path or table cell recurs across texts),
 * one per tokenizer: at most `SEGMENTED_LIMIT` strings of up to `SEGMENTED_MAX_LENGTH` code
 * units, cleared when full. Segmentation is a function of the string, so a
 * hit gives exactly the words a call would.
 */
type SegmentedMemo = Map<string, { words: readonly string[]; endsFlush: boolean }>;
const SEGMENTED_LIMIT = 16_384;
const SEGMENTED_MAX_LENGTH = 64;

/**
 * Appends the UAX #29 words of `text` that contain a letter or digit to `out`.
 * Returns whether the last word ends at the very end of `text`.
 */
function pushWords(out: string[], text: string, segmented: SegmentedMemo): boolean {
  const simple = simpleWord(text);
  if (simple !== null) {
    // Fast path, same result as the segmenter (a property test checks it).
    out.push(text.slice(simple[0], simple[1]));
    return simple[1] === text.length;
  }
  if (splitsAtSpaces(text)) {
    // Words never span a space unless a mark or modifier attaches to it (WB4),
    // so the pieces between spaces can be segmented one by one.
    const pieces = text.split(" ");
    let endsFlush = false;
    for (const p of pieces) endsFlush = p !== "" && hasWordChar(p, 0, p.length) ? pushWords(out, p, segmented) : false;
    return endsFlush;
  }
  const known = segmented.get(text);
  if (known !== undefined) {
    for (const w of known.words) out.push(w);
    return known.endsFlush;
  }
  const words: string[] = [];
  let endsFlush = false;
  for (const s of wordSegmenter.segment(text)) {
    if (hasWordChar(s.segment, 0, s.segment.length)) {
      words.push(s.segment);
      endsFlush = s.index + s.segment.length === text.length;
    } else {
      endsFlush = false;
    }
  }
  for (const w of words) out.push(w);
  if (text.length <= SEGMENTED_MAX_LENGTH) {
    if (segmented.size >= SEGMENTED_LIMIT) segmented.clear();
    segmented.set(text, { words, endsFlush });
  }
  return endsFlush;
}

/** The UAX #29 words of `text` that contain a letter or digit (the non-Han half of the tokenizer). */
export function unicodeWords(text: string): string[] {
  const out: string[] = [];
  pushWords(out, text, new Map());
  return out;
}

/** The tokenizer for mixed Chinese and other scripts described above. */
export function createMixedTokenizer(segmentHan: HanSegmenter): Tokenizer {
  const segmented: SegmentedMemo = new Map();
  return {
    tokenize(normalized: string): string[] {
      // One segmenter call over the whole text (native calls are the cost);
      // its Han tokens are kept, the text between them is re-segmented by UAX #29.
      // The segmenter's tokens concatenate to the input, so a stretch of other
      // tokens is the slice [otherFrom, at) of the text (no string built per token).
      const out: string[] = [];
      let at = 0; // offset of the current token in `normalized`
      let otherFrom = -1; // start of the current stretch of non-Han tokens, -1 for none
      for (const w of segmentHan(normalized)) {
        if (isHanOnly(w)) {
          let joinable = false; // the stretch before this token ends with a word flush with it
          if (otherFrom >= 0) {
            if (hasWordChar(normalized, otherFrom, at)) {
              joinable = pushWords(out, normalized.slice(otherFrom, at), segmented) && endsWithAlnum(out[out.length - 1]!);
            }
            otherFrom = -1;
          }
          if (joinable && isSingleCodePoint(w)) out[out.length - 1] += w;
          else out.push(w);
        } else if (otherFrom < 0) {
          otherFrom = at;
        }
        at += w.length;
      }
      if (otherFrom >= 0 && hasWordChar(normalized, otherFrom, at)) pushWords(out, normalized.slice(otherFrom, at), segmented);
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
  const segmented: SegmentedMemo = new Map();
  return {
    tokenize(normalized: string): string[] {
      const out: string[] = [];
      pushWords(out, normalized, segmented);
      return out;
    },
  };
}
