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
