/**
 * Cosine similarity of sparse non-negative vectors, and the character-level
 * cosine (cosine of the two texts' character-count vectors).
 */
import type { SparseVector } from "../tfidf.js";

/**
 * cos(a, b) = a.b / (|a| |b|), clamped to [0, 1] (weights are non-negative, so
 * only rounding could leave the range). 0 if either vector is all zero.
 */
export function cosine(a: SparseVector, b: SparseVector): number {
  // Iterate over the smaller map for the dot product. Floating-point sums
  // depend on their order, so for maps of equal size (where the argument order
  // would pick the order) both sums are taken and the smaller kept: the result
  // is then exactly symmetric, cosine(a, b) === cosine(b, a).
  const dot = a.size < b.size ? dotOver(a, b) : a.size > b.size ? dotOver(b, a) : Math.min(dotOver(a, b), dotOver(b, a));
  if (dot === 0) return 0;
  const c = dot / Math.sqrt(squaredNorm(a) * squaredNorm(b));
  return c > 1 ? 1 : c < 0 ? 0 : c;
}

/** Sum of w * other[t] over the entries of `over`, in its iteration order. */
function dotOver(over: SparseVector, other: SparseVector): number {
  let dot = 0;
  for (const [t, w] of over) {
    const u = other.get(t);
    if (u !== undefined) dot += w * u;
  }
  return dot;
}

function squaredNorm(v: SparseVector): number {
  let s = 0;
  for (const w of v.values()) s += w * w;
  return s;
}

/** Counts of each code point, white space excluded. */
export function charCounts(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const ch of text) {
    if (ch === " ") continue;
    m.set(ch, (m.get(ch) ?? 0) + 1);
  }
  return m;
}

/** Per code point counts of the two texts of a `charCosine` call, all zero between calls (4.4 MB each, allocated on first use). */
let countsA: Int32Array | undefined;
let countsB: Int32Array | undefined;

/** Adds the text's code points (spaces excluded) to `counts`; a lone surrogate counts as a code point, as `for...of` gives it. */
function countInto(text: string, counts: Int32Array): void {
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    if (cp !== 0x20) counts[cp]!++;
  }
}

/**
 * Over the distinct code points of `text` (each once: its counter is zeroed
 * on the first visit, which also leaves `counts` clean), the sum of the
 * squared counts, and of the counts times `other`'s.
 */
function drain(text: string, counts: Int32Array, other: Int32Array): { squares: number; dot: number } {
  let squares = 0;
  let dot = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    const v = counts[cp]!;
    if (v === 0) continue;
    squares += v * v;
    dot += v * other[cp]!;
    counts[cp] = 0;
  }
  return { squares, dot };
}

/**
 * Character-level cosine: cosine of code-point count vectors (spaces
 * ignored), `cosine(charCounts(a), charCounts(b))`. Counted in typed arrays
 * instead of Maps of one-character strings: the sums are of integers, exact
 * in any order, so the value is the same to the last bit.
 */
export function charCosine(a: string, b: string): number {
  const ca = (countsA ??= new Int32Array(0x110000));
  const cb = (countsB ??= new Int32Array(0x110000));
  countInto(a, ca);
  countInto(b, cb);
  const { squares: normA, dot } = drain(a, ca, cb); // before b's counts are drained
  const { squares: normB } = drain(b, cb, ca); // a's counts are all zero by now
  if (dot === 0) return 0;
  const c = dot / Math.sqrt(normA * normB);
  return c > 1 ? 1 : c < 0 ? 0 : c;
}
