import { loadPoems } from "../../bench/poems.js";
import type { Fingerprinter } from "../../src/core/index.js";
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
