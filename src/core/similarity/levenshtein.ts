/**
 * Levenshtein (edit) distance in code points, and its normalized similarity.
 *
 * Short patterns (<= 32 code units, no surrogates: the short-text case) use
 * the one-word Myers algorithm below; longer ones `fastest-levenshtein`
 * (the same algorithm in blocks, O(ceil(m/32) n)), which works on UTF-16 code units. Texts outside the BMP
 * would count a surrogate pair as two characters, so when either text has a
 * surrogate both are first re-coded: each distinct code point becomes one
 * code unit (its index in a shared alphabet), which keeps equality and length
 * per code point and so the distance.
 */
import { distance as myersDistance } from "fastest-levenshtein";

const HAS_SURROGATE = /[\uD800-\uDFFF]/;

function recode(a: string, b: string): [string, string] {
  const alphabet = new Map<number, number>();
  const map = (s: string): string | null => {
    const units: number[] = [];
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      let id = alphabet.get(cp);
      if (id === undefined) {
        id = alphabet.size;
        if (id > 0xffff) return null;
        alphabet.set(cp, id);
      }
      units.push(id);
    }
    let out = "";
    // Chunked to stay below the argument-count limit of fromCharCode.
    for (let i = 0; i < units.length; i += 8192) out += String.fromCharCode(...units.slice(i, i + 8192));
    return out;
  };
  const x = map(a);
  const y = x === null ? null : map(b);
  // More than 65,536 distinct code points do not fit one code unit each: signal the slow path.
  return x === null || y === null ? ["", ""] : [x, y];
}

/** Textbook O(nm) dynamic programme; only for the (theoretical) > 65,536-symbol alphabet. */
function dynamicProgramming(a: string[], b: string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** Pattern bit masks per code unit for `myers32`, all zero between calls. */
const peq = new Uint32Array(0x10000);

/**
 * Myers' bit-parallel edit distance (Myers 1999, in Hyyrö's formulation) for a
 * pattern of 1..32 code units: one 32-bit word holds the vertical deltas of a
 * DP column. Returns -1 if either string has a surrogate (then code units are
 * not code points and the caller takes the general path).
 */
function myers32(a: string, b: string): number {
  const n = a.length;
  let i = 0;
  for (; i < n; i++) {
    const c = a.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) break;
    peq[c]! |= 1 << i;
  }
  let score = i === n ? n : -1;
  if (score >= 0) {
    const last = 1 << (n - 1);
    let pv = -1;
    let mv = 0;
    for (let j = 0; j < b.length; j++) {
      const c = b.charCodeAt(j);
      if (c >= 0xd800 && c <= 0xdfff) {
        score = -1;
        break;
      }
      let eq = peq[c]!;
      const xv = eq | mv;
      eq |= ((eq & pv) + pv) ^ pv;
      mv |= ~(eq | pv);
      pv &= eq;
      if (mv & last) score++;
      if (pv & last) score--;
      mv = (mv << 1) | 1;
      pv = (pv << 1) | ~(xv | mv);
      mv &= xv;
    }
  }
  for (let k = 0; k < i; k++) peq[a.charCodeAt(k)] = 0;
  return score;
}

/** Minimum number of code-point insertions, deletions and substitutions turning a into b. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length > b.length) [a, b] = [b, a];
  if (a.length === 0) return HAS_SURROGATE.test(b) ? Array.from(b).length : b.length;
  if (a.length <= 32) {
    const d = myers32(a, b);
    if (d >= 0) return d;
  }
  if (HAS_SURROGATE.test(a) || HAS_SURROGATE.test(b)) {
    const [x, y] = recode(a, b);
    return x === "" && y === "" ? dynamicProgramming(Array.from(a), Array.from(b)) : myersDistance(x, y);
  }
  return myersDistance(a, b);
}

/** 1 - distance / max(length) in code points; 1 for two empty strings. */
export function editSimilarity(a: string, b: string): number {
  const la = HAS_SURROGATE.test(a) ? Array.from(a).length : a.length;
  const lb = HAS_SURROGATE.test(b) ? Array.from(b).length : b.length;
  const m = Math.max(la, lb);
  return m === 0 ? 1 : 1 - levenshtein(a, b) / m;
}
