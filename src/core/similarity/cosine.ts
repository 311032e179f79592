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

/** Character-level cosine: cosine of code-point count vectors (spaces ignored). */
export function charCosine(a: string, b: string): number {
  return cosine(charCounts(a), charCounts(b));
}
