/**
 * Levenshtein (edit) distance in code points, and its normalized similarity.
 *
 * The distance itself is `fastest-levenshtein` (Myers' bit-parallel algorithm,
 * O(ceil(m/32) n)), which works on UTF-16 code units. Texts outside the BMP
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

/** Minimum number of code-point insertions, deletions and substitutions turning a into b. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
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
