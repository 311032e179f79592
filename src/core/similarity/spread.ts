/**
 * Does the similarity of two texts hold over the whole text, or only over a
 * shared part (issue 14: a heading, a greeting, a template paragraph, a quoted
 * message or a footer that two different texts both carry)?
 *
 * Two measures, both linear in the text length:
 *
 * - `differingMiddle`: strip the longest common prefix and the longest common
 *   suffix (not overlapping); what is left of each text is the part where they
 *   differ. A near-duplicate made by spread-out edits leaves a long middle that
 *   is still alike; a truncated copy or a copy with a notice added leaves an
 *   empty middle on one side; two different bodies behind a shared opening
 *   leave two long middles that are not alike.
 * - `windowCoverage`: cut a text into windows and count how much of it lies in
 *   windows whose character 3-grams mostly (>= half) occur in the other text.
 *   Unlike the affixes it also sees a shared block that is not exactly equal
 *   or not at an end.
 *
 * Character 3-grams are hashed from UTF-16 code units to 32-bit integers
 * (collisions only make two texts look a little more alike).
 */

/** Hash of the 3-gram starting at code unit `i` (callers keep i + 2 < length). */
function gram(s: string, i: number): number {
  return (Math.imul(s.charCodeAt(i), 0x9e3779b1) ^ Math.imul(s.charCodeAt(i + 1), 0x85ebca77) ^ Math.imul(s.charCodeAt(i + 2), 0xc2b2ae3d)) | 0;
}

/** The set of hashed character 3-grams of `s` (a text of 1-2 code units: one gram for the whole text). */
export function trigramSet(s: string, from = 0, to = s.length): Set<number> {
  const out = new Set<number>();
  const n = to - from;
  if (n <= 0) return out;
  if (n < 3) {
    out.add(n === 1 ? s.charCodeAt(from) : (Math.imul(s.charCodeAt(from), 0x9e3779b1) ^ s.charCodeAt(from + 1)) | 0);
    return out;
  }
  for (let i = from; i + 3 <= to; i++) out.add(gram(s, i));
  return out;
}

/** Jaccard |A ∩ B| / |A ∪ B| of two sets; two empty sets give 1. */
export function setJaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Sorted hashed 3-grams of s[from, to), duplicates kept (the one-gram rule of `trigramSet` for 1-2 code units). */
export function sortedGrams(s: string, from: number, to: number): Int32Array {
  const n = to - from;
  if (n <= 0) return new Int32Array(0);
  if (n < 3) return Int32Array.of(n === 1 ? s.charCodeAt(from) : (Math.imul(s.charCodeAt(from), 0x9e3779b1) ^ s.charCodeAt(from + 1)) | 0);
  const out = new Int32Array(n - 2);
  for (let i = from; i + 3 <= to; i++) out[i - from] = gram(s, i);
  return out.sort();
}

/**
 * The last first-side grams: the re-rank compares one text (always the first
 * argument) with each of its candidates in turn, so its grams are sorted once.
 */
let lastA: { s: string; from: number; to: number; grams: Int32Array } | undefined;
/** Longest range kept in `lastA` (code units): a huge text is not held between calls. */
const MEMO_MAX = 20_000;

/** The range before `lastA`: a re-rank alternates the whole query (containment, Jaccard) with its middles (the veto). */
let lastButOneA: typeof lastA;

/** `sortedGrams(a, from, to)`, kept for the next calls with the same first side (the last two ranges asked). */
function firstSideGrams(a: string, from: number, to: number): Int32Array {
  for (const m of [lastA, lastButOneA]) if (m !== undefined && m.from === from && m.to === to && m.s === a) return m.grams;
  const grams = sortedGrams(a, from, to);
  if (to - from <= MEMO_MAX) {
    lastButOneA = lastA;
    lastA = { s: a, from, to, grams };
  }
  return grams;
}

/** The second side's last range: a pair's Jaccard and then its containment sort the candidate's grams once. */
let lastB: typeof lastA;

/** `sortedGrams(b, from, to)`, kept for the next call with the same second side. */
function secondSideGrams(b: string, from: number, to: number): Int32Array {
  if (lastB !== undefined && lastB.from === from && lastB.to === to && lastB.s === b) return lastB.grams;
  const grams = sortedGrams(b, from, to);
  lastB = to - from <= MEMO_MAX ? { s: b, from, to, grams } : undefined;
  return grams;
}

/**
 * Jaccard of the 3-gram sets of a[fromA, toA) and b[fromB, toB): the same
 * value as `setJaccard(trigramSet(...), trigramSet(...))`, computed by
 * merging two sorted typed arrays (about 3x faster than building Sets; the
 * verdict runs on every candidate).
 */
export function trigramJaccardRange(a: string, fromA: number, toA: number, b: string, fromB: number, toB: number): number {
  const x = firstSideGrams(a, fromA, toA);
  const y = secondSideGrams(b, fromB, toB);
  if (x.length === 0 && y.length === 0) return 1;
  mergeCounts(x, y);
  return shared / (distinctX + distinctY - shared);
}

/** Counts of the last `mergeCounts`: distinct values both arrays hold, and each holds (module scratch: no object a call). */
let shared = 0;
let distinctX = 0;
let distinctY = 0;

/** Merges two sorted arrays (duplicates kept) into the counts above. */
function mergeCounts(x: Int32Array, y: Int32Array): void {
  // Locals in the loop, the module's counts set once: a hot loop on module variables is slower.
  let i = 0;
  let j = 0;
  let both = 0;
  let dx = 0;
  let dy = 0;
  while (i < x.length || j < y.length) {
    const u = i < x.length ? x[i]! : Infinity;
    const v = j < y.length ? y[j]! : Infinity;
    if (u <= v) dx++;
    if (v <= u) dy++;
    if (u === v) both++;
    const m = Math.min(u, v);
    while (i < x.length && x[i] === m) i++;
    while (j < y.length && y[j] === m) j++;
  }
  shared = both;
  distinctX = dx;
  distinctY = dy;
}

/** Jaccard similarity of the character 3-gram sets of two texts. */
export function trigramJaccard(a: string, b: string): number {
  return trigramJaccardRange(a, 0, a.length, b, 0, b.length);
}

/**
 * Overlap coefficient of the character 3-gram sets of two texts:
 * |A ∩ B| / min(|A|, |B|) over the same grams as `trigramJaccard` (1 when
 * either has none). It is the share of the smaller set found in the other:
 * a text cut short, or one with a notice added to it, is contained in the
 * other (1); edits inside it lower the share. Symmetric.
 */
export function trigramContainment(a: string, b: string): number {
  mergeCounts(firstSideGrams(a, 0, a.length), secondSideGrams(b, 0, b.length));
  const smaller = Math.min(distinctX, distinctY);
  return smaller === 0 ? 1 : shared / smaller;
}

export interface DifferingMiddle {
  /** Length of the common prefix, code units. */
  prefix: number;
  /** Length of the common suffix, code units (never overlapping the prefix in either text). */
  suffix: number;
  /** Length of what is left of `a` and of `b` between them, code units. */
  middleA: number;
  middleB: number;
  /**
   * min(middleA, middleB) / max(a.length, b.length), in [0, 1]: how much of
   * the longer text is a differing part present on BOTH sides (0 when one text
   * is the other plus or minus one block).
   */
  share: number;
  /** Character 3-gram Jaccard of the two middles (1 when either is empty). */
  similarity: number;
}

/**
 * Common prefix and suffix of two texts, and how alike the parts between them
 * are. With `minLength` / `minShare`, returns null without hashing anything
 * when the shorter middle is below either (the verdict's fast path).
 */
export function differingMiddle(a: string, b: string): DifferingMiddle;
export function differingMiddle(a: string, b: string, minLength: number, minShare: number): DifferingMiddle | null;
export function differingMiddle(a: string, b: string, minLength = 0, minShare = 0): DifferingMiddle | null {
  const n = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < n && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < n - prefix && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  const middleA = a.length - prefix - suffix;
  const middleB = b.length - prefix - suffix;
  const longer = Math.max(a.length, b.length);
  const share = longer === 0 ? 0 : Math.min(middleA, middleB) / longer;
  if (Math.min(middleA, middleB) < minLength || share < minShare || (minLength > 0 && share === 0)) return null;
  const similarity = middleA === 0 || middleB === 0 ? 1 : trigramJaccardRange(a, prefix, a.length - suffix, b, prefix, b.length - suffix);
  return { prefix, suffix, middleA, middleB, share, similarity };
}

/** Longest part (code units) that `oneWord` takes for one word. */
export const MAX_WORD_UNITS = 20;
/** Most Han characters in one word: Chinese words are one to four characters. */
export const MAX_WORD_HAN = 4;
const SPACE = /\s/u;
const HAN = /\p{Script=Han}/gu;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Whether `s.slice(from, to)` is at most one word: no whitespace inside, at
 * most `MAX_WORD_UNITS` code units and at most `MAX_WORD_HAN` Han characters
 * (scripts written without spaces). Punctuation may cling to it (`dioxide,`).
 * Empty counts as at most one word.
 */
export function oneWord(s: string, from: number, to: number): boolean {
  if (to - from > MAX_WORD_UNITS) return false;
  const part = s.slice(from, to);
  if (SPACE.test(part)) return false;
  return (part.match(HAN)?.length ?? 0) <= MAX_WORD_HAN;
}

/**
 * Whether two texts differ in one word at most, inside a common opening and a
 * common ending that both hold a letter or digit (a shared closing bracket or
 * comma is no common ending): "are you a little" / "are couples a little".
 * Returns the share of the longer text the opening and ending cover, or null
 * when the texts are not so.
 */
export function oneWordSwap(a: string, b: string): number | null {
  const m = differingMiddle(a, b);
  if (!LETTER_OR_DIGIT.test(a.slice(0, m.prefix)) || !LETTER_OR_DIGIT.test(a.slice(a.length - m.suffix))) return null;
  if (!oneWord(a, m.prefix, a.length - m.suffix) || !oneWord(b, m.prefix, b.length - m.suffix)) return null;
  return (m.prefix + m.suffix) / Math.max(a.length, b.length);
}

/**
 * Whether two texts share their opening but end differently: a common opening
 * and no common ending that hold a letter or digit, two non-empty differing
 * endings that are not both one word ("yay!" / "hehe..." is one word each;
 * "i vote" / "assuming" is not). Returns the character 3-gram Jaccard of the
 * two endings, or null when the texts are not so.
 */
export function differentEnding(a: string, b: string): number | null {
  const m = differingMiddle(a, b);
  if (m.middleA === 0 || m.middleB === 0) return null;
  if (!LETTER_OR_DIGIT.test(a.slice(0, m.prefix)) || LETTER_OR_DIGIT.test(a.slice(a.length - m.suffix))) return null;
  if (oneWord(a, m.prefix, a.length - m.suffix) && oneWord(b, m.prefix, b.length - m.suffix)) return null;
  return m.similarity;
}

/**
 * Share of `a` (by 3-grams) lying in windows of which at least half the
 * 3-grams occur in `other`. `a` is cut into `windows` windows of equal
 * length (fewer for short texts: at least `minWindow` 3-grams each).
 */
export function windowCoverage(a: string, other: ReadonlySet<number>, windows = 10, minWindow = 8): number {
  const grams = a.length - 2;
  if (grams <= 0) return other.has(trigramSet(a).values().next().value ?? 0) ? 1 : 0;
  const k = Math.max(1, Math.min(windows, Math.floor(grams / minWindow)));
  let covered = 0;
  for (let w = 0; w < k; w++) {
    const from = Math.floor((w * grams) / k);
    const to = Math.floor(((w + 1) * grams) / k);
    let hit = 0;
    for (let i = from; i < to; i++) if (other.has(gram(a, i))) hit++;
    if (hit * 2 >= to - from) covered += to - from;
  }
  return covered / grams;
}
