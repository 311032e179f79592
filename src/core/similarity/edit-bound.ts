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

/** Bigram counts keyed by `cp1 * 0x110000 + cp2` (< 2^53, exact in a double). */
function bigramCounts(text: string): { counts: Map<number, number>; length: number } {
  const counts = new Map<number, number>();
  let prev = -1;
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    length++;
    if (prev >= 0) {
      const key = prev * 0x110000 + cp;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    prev = cp;
  }
  return { counts, length };
}

/** The last first-side counts: the re-rank bounds one text (the first argument) against each of its candidates in turn. */
let lastA: { text: string; counts: ReturnType<typeof bigramCounts> } | undefined;
const MEMO_MAX = 20_000;

/** A lower bound on `levenshtein(a, b)` in code points, in O(len(a) + len(b)) time. */
export function editDistanceLowerBound(a: string, b: string): number {
  if (a === b) return 0;
  let x: ReturnType<typeof bigramCounts>;
  if (lastA?.text === a) x = lastA.counts;
  else {
    x = bigramCounts(a);
    lastA = a.length <= MEMO_MAX ? { text: a, counts: x } : undefined; // a huge text is not held between calls
  }
  const y = bigramCounts(b);
  let l1 = 0;
  for (const [key, n] of x.counts) l1 += Math.abs(n - (y.counts.get(key) ?? 0));
  for (const [key, n] of y.counts) if (!x.counts.has(key)) l1 += n;
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
