/**
 * Levenshtein (edit) distance in code points, and its normalized similarity.
 *
 * A common prefix and suffix are skipped; when the shorter remaining middle
 * has <= 32 code units and no surrogates (the short-text case) the one-word
 * Myers algorithm below runs on it without copying. Longer ones go to
 * `levenshteinBanded` (banded.ts): Myers' blocks inside Ukkonen's band,
 * widened until it holds the distance, over code points (a surrogate pair is
 * one symbol), so a near-duplicate's distance costs a narrow band, not the
 * whole matrix.
 */
import { levenshteinBanded } from "./banded.js";

const HAS_SURROGATE = /[\uD800-\uDFFF]/;

/** Pattern bit masks per code unit for `myers32`, all zero between calls (Int32: bit 31 stays a plain int). */
const peq = new Int32Array(0x10000);

const isSurrogate = (c: number): boolean => (c & 0xf800) === 0xd800;

/**
 * Myers' bit-parallel edit distance (Myers 1999, in Hyyrö's formulation)
 * between the pattern a[as..ae) of 0..32 code units and the text b[bs..be):
 * one 32-bit word holds the vertical deltas of a DP column, so a text
 * character costs a dozen integer operations. Works on index ranges so the
 * caller can strip a common prefix and suffix without copying. Returns -1 if
 * either range has a surrogate (code units are then not code points; the
 * caller takes the general path).
 */
function myers32(a: string, as: number, ae: number, b: string, bs: number, be: number): number {
  const n = ae - as;
  let score = n;
  if (n === 0) {
    for (let j = bs; j < be; j++) if (isSurrogate(b.charCodeAt(j))) return -1;
    return be - bs;
  }
  let i = as;
  for (; i < ae; i++) {
    const c = a.charCodeAt(i);
    if (isSurrogate(c)) {
      score = -1;
      break;
    }
    peq[c] |= 1 << (i - as);
  }
  if (score >= 0) {
    const last = 1 << (n - 1);
    let pv = -1; // vertical +1 deltas: column 0 is 0, 1, 2, ...
    let mv = 0; // vertical -1 deltas
    for (let j = bs; j < be; j++) {
      const c = b.charCodeAt(j);
      if (isSurrogate(c)) {
        score = -1;
        break;
      }
      let eq = peq[c]!;
      const xv = eq | mv;
      // `| 0` keeps the carry-propagating add in int32 (the sum may pass 2^31).
      eq |= (((eq & pv) + pv) | 0) ^ pv;
      mv |= ~(eq | pv);
      pv &= eq;
      if ((mv & last) !== 0) score++;
      if ((pv & last) !== 0) score--;
      mv = (mv << 1) | 1;
      pv = (pv << 1) | ~(xv | mv);
      mv &= xv;
    }
  }
  for (let k = as; k < i; k++) peq[a.charCodeAt(k)] = 0;
  return score;
}

/** Minimum number of code-point insertions, deletions and substitutions turning a into b. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  // A common prefix and suffix never change the distance, so only the middles
  // are compared. If a cut splits a surrogate pair, a lone half stays in a
  // middle and myers32 declines; otherwise the cuts fall between code points.
  let start = 0;
  let ea = a.length;
  let eb = b.length;
  const min = Math.min(ea, eb);
  while (start < min && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  while (ea > start && eb > start && a.charCodeAt(ea - 1) === b.charCodeAt(eb - 1)) {
    ea--;
    eb--;
  }
  // A cut inside a surrogate pair of one text can take a whole pair of the other (a = "\ud800a\udc00",
  // b = "\ud800\udc00": prefix and suffix would leave "a" and "", distance 1, where the code points give 3).
  // Keep such halves in the middles, where myers32 declines them.
  if (start > 0 && (a.charCodeAt(start - 1) & 0xfc00) === 0xd800) start--;
  if (ea < a.length && (a.charCodeAt(ea) & 0xfc00) === 0xdc00) {
    ea++;
    eb++;
  }
  if (Math.min(ea, eb) - start <= 32) {
    const d = ea <= eb ? myers32(a, start, ea, b, start, eb) : myers32(b, start, eb, a, start, ea);
    if (d >= 0) return d;
  }
  return levenshteinBanded(a, b);
}

/** 1 - distance / max(length) in code points; 1 for two empty strings. */
export function editSimilarity(a: string, b: string): number {
  const la = HAS_SURROGATE.test(a) ? Array.from(a).length : a.length;
  const lb = HAS_SURROGATE.test(b) ? Array.from(b).length : b.length;
  const m = Math.max(la, lb);
  return m === 0 ? 1 : 1 - levenshtein(a, b) / m;
}
