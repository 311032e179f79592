import { loadPoems } from "../../bench/poems.js";
import type { Fingerprinter } from "../../src/core/index.js";
import { hamming } from "../../src/core/fingerprint.js";
import { probeOf, reaches } from "../../src/service/candidates/index.js";

/**
 * Pairs (four poems, the same with every 12th character replaced) longer than
 * the sketch's inline text, that only the edit rule calls duplicates and that
 * the lookup reaches: the edit rule needs the stored text.
 */
export function editOnlyPairs(fp: Fingerprinter, count: number): { a: string; b: string }[] {
  const poems = loadPoems(1);
  const out: { a: string; b: string }[] = [];
  for (let i = 0; out.length < count && i < 500; i++) {
    const a = poems.slice(i * 4, i * 4 + 4).join("");
    const length = [...a].length;
    if (length < 320 || length > 900) continue;
    const b = [...a].map((c, k) => (k % 12 === 5 ? "某" : c)).join("");
    const A = fp.analyze(a);
    const B = fp.analyze(b);
    const verdict = fp.compare(B, A);
    if (verdict.rule === "medium.edit" && reaches(probeOf(B, 3), { simhash: A.simhash, lsh: A.lsh, lshScheme: A.lshScheme })) out.push({ a, b });
  }
  return out;
}

/**
 * Pairs longer than the sketch's inline text that the lookup reaches through
 * a band key (and not within 3 bits), of lengths that allow the edit rule,
 * but far from duplicates: `b` is the first half of `a` and then other
 * poems. Their text filters rule both text rules out.
 */
export function farPairs(fp: Fingerprinter, count: number, avoid: readonly string[] = []): { a: string; b: string }[] {
  const poems = loadPoems(1);
  const out: { a: string; b: string }[] = [];
  // Never a near-duplicate of a text the caller stores beside them (the corpus holds editions of one poem).
  const avoided = avoid.map((t) => fp.analyze(t));
  const clear = (x: ReturnType<Fingerprinter["analyze"]>) => avoided.every((y) => !fp.compare(x, y).duplicate);
  for (let i = 0; out.length < count && i < 40; i++) {
    const a = poems.slice(i * 12, i * 12 + 12).join("").slice(0, 400);
    const A = fp.analyze(a);
    if (!clear(A)) continue;
    for (let k = 500; k < poems.length - 12; k++) {
      const b = a.slice(0, 200) + poems.slice(k, k + 12).join("").slice(0, 200);
      const B = fp.analyze(b);
      if (fp.compare(B, A).duplicate || hamming(A.simhash, B.simhash) <= 3 || !B.lsh.some((key) => A.lsh.includes(key)) || !clear(B)) continue;
      out.push({ a, b });
      break;
    }
  }
  return out;
}
