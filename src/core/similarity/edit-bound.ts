/**
 * A linear-time lower bound on the Levenshtein distance, for texts too long
 * for the quadratic exact measure.
 *
 * Two facts bound the distance d from below (Ukkonen 1992, "Approximate
 * string-matching with q-grams"):
 * - d >= |len(a) - len(b)|: each edit changes the length by at most one;
 * - d >= D / (2q), where D is the L1 distance between the q-gram count
 *   vectors: one substitution removes at most q q-grams and adds at most q,
 *   an insertion or deletion touches at most 2q - 1, so D moves by <= 2q per edit.
 * With q = 2 (code-point bigrams) both take one pass over each text.
 *
 * A third, from single code points (q = 1), is often the tighter on texts that
 * differ in whole passages, where the passages share few characters: with L1
 * distance C between the two code-point count vectors, a substitution moves C
 * by at most 2 and an insertion or deletion by 1, so C <= 2s + i + e, and
 * d = s + i + e >= (C + i + e) / 2 >= (C + |len(a) - len(b)|) / 2.
 */

/**
 * A text's code-point bigrams as sorted keys `cp1 * 0x110000 + cp2` (< 2^42,
 * exact in a double), with its length in code points. Sorted arrays are
 * merged in `editDistanceLowerBound`: about 3x cheaper than counting in Maps,
 * and the same L1 distance.
 */
function sortedBigrams(text: string): { keys: Float64Array; length: number } {
  const keys = new Float64Array(text.length);
  let prev = -1;
  let length = 0;
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    length++;
    if (prev >= 0) keys[k++] = prev * 0x110000 + cp;
    prev = cp;
  }
  return { keys: keys.subarray(0, k).sort(), length };
}

/** The last first-side bigrams: the re-rank bounds one text (the first argument) against each of its candidates in turn. */
let lastA: { text: string; bigrams: ReturnType<typeof sortedBigrams> } | undefined;
const MEMO_MAX = 20_000;

/** A lower bound on `levenshtein(a, b)` in code points, in O(len(a) + len(b)) time (and a sort). */
export function editDistanceLowerBound(a: string, b: string): number {
  if (a === b) return 0;
  let x: ReturnType<typeof sortedBigrams>;
  if (lastA?.text === a) x = lastA.bigrams;
  else {
    x = sortedBigrams(a);
    lastA = a.length <= MEMO_MAX ? { text: a, bigrams: x } : undefined; // a huge text is not held between calls
  }
  const y = sortedBigrams(b);
  // L1 distance of the two bigram count vectors: the sizes of the two multiset differences.
  const p = x.keys;
  const q = y.keys;
  let i = 0;
  let j = 0;
  let l1 = 0;
  while (i < p.length && j < q.length) {
    if (p[i]! === q[j]!) {
      i++;
      j++;
    } else if (p[i]! < q[j]!) {
      i++;
      l1++;
    } else {
      j++;
      l1++;
    }
  }
  l1 += p.length - i + (q.length - j);
  return Math.max(Math.abs(x.length - y.length), Math.ceil(l1 / 4));
}

/** Code-point counts, up for one text and down for the other; every entry is back to 0 between calls. */
let counts: Int32Array | undefined;

/** The q = 1 bound: ceil((C + |len(a) - len(b)|) / 2) <= `levenshtein(a, b)`, in one pass over each text and no allocation. */
export function characterDistanceLowerBound(a: string, b: string): number {
  return a === b ? 0 : characterBound(a, b).distance;
}

/** The q = 1 bound, with the longer length in code points (counted on the way). */
export function characterBound(a: string, b: string): { distance: number; longer: number } {
  const c = (counts ??= new Int32Array(0x110000)); // 4.4 MB once: every code point has its counter
  let la = 0;
  let lb = 0;
  for (let i = 0; i < a.length; i++) {
    const cp = a.codePointAt(i)!;
    if (cp > 0xffff) i++;
    c[cp]!++;
    la++;
  }
  for (let i = 0; i < b.length; i++) {
    const cp = b.codePointAt(i)!;
    if (cp > 0xffff) i++;
    c[cp]!--;
    lb++;
  }
  // Each distinct code point's difference is taken once (its counter is zeroed on the first visit).
  let l1 = 0;
  for (const text of [a, b]) {
    for (let i = 0; i < text.length; i++) {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      l1 += Math.abs(c[cp]!);
      c[cp] = 0;
    }
  }
  return { distance: Math.ceil((l1 + Math.abs(la - lb)) / 2), longer: Math.max(la, lb) };
}

/**
 * Whether `editSimilarity(a, b)` may reach `min`: false when the q = 1 bound
 * or (only then computed) the bigram bound already puts it below. Never
 * false when it does reach `min` (both are lower bounds on the distance).
 */
export function editSimilarityMayReach(a: string, b: string, min: number): boolean {
  if (a === b) return true;
  const { distance, longer } = characterBound(a, b);
  if (longer === 0) return true;
  if (1 - distance / longer < min) return false;
  return 1 - editDistanceLowerBound(a, b) / longer >= min;
}

function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

/** The matching upper bound on `editSimilarity(a, b)`: 1 - lowerBound / max length (code points). */
export function editSimilarityUpperBound(a: string, b: string): number {
  const la = codePoints(a);
  const lb = codePoints(b);
  const m = Math.max(la, lb);
  return m === 0 ? 1 : 1 - editDistanceLowerBound(a, b) / m;
}
