/** Jaccard similarity of character shingles (k consecutive code points). */
import { NeardupError } from "../errors.js";

/**
 * The set of k-shingles of `text` (code points; spaces kept as they are, so
 * normalize first). A text shorter than k has itself as its only shingle; the
 * empty text has none.
 */
export function charShingles(text: string, k = 2): Set<string> {
  if (!Number.isInteger(k) || k < 1) throw new NeardupError("INVALID_INPUT", `shingle size k must be a positive integer, got ${JSON.stringify(k)}`, { field: "k" });
  const cps = Array.from(text);
  const out = new Set<string>();
  if (cps.length === 0) return out;
  if (cps.length < k) {
    out.add(text);
    return out;
  }
  for (let i = 0; i + k <= cps.length; i++) out.add(cps.slice(i, i + k).join(""));
  return out;
}

/** |A ∩ B| / |A ∪ B|; two empty sets are identical (1). */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Jaccard similarity of the k-shingle sets of two texts (default k = 2). */
export function shingleJaccard(a: string, b: string, k = 2): number {
  return jaccard(charShingles(a, k), charShingles(b, k));
}
