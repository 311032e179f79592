/**
 * Grid search of verdict thresholds per length bucket: the rule set of
 * src/core/verdict.ts (simhash distance OR TF-IDF cosine OR edit similarity,
 * each rule optional) with every combination of thresholds on a grid, scored
 * by F1 on the calibration half of the pairs.
 */
import type { VerdictBucket } from "../../src/core/index.js";
import { score } from "./metrics.js";

/** Per-pair measurements the rules look at. */
export interface Measured {
  label: 0 | 1;
  /** Shorter normalized length, code points (the verdict's bucket key). */
  minLength: number;
  distance: number;
  cosine: number;
  edit: number;
}

export const DISTANCES: readonly (number | null)[] = [null, 0, 1, 2, 3, 4, 5, 6, 8, 10];
export const COSINES: readonly (number | null)[] = [null, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
export const EDITS: readonly (number | null)[] = [null, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

export type Rules = Pick<VerdictBucket, "maxDistance" | "minCosine" | "minEditSimilarity">;

export function applies(r: Rules, m: Measured): boolean {
  return (
    (r.maxDistance !== null && m.distance <= r.maxDistance) ||
    (r.minCosine !== null && m.cosine >= r.minCosine) ||
    (r.minEditSimilarity !== null && m.edit >= r.minEditSimilarity)
  );
}

/**
 * Best rules for a set of pairs. Ties (F1 within 0.002) go to fewer rules,
 * then to no edit rule (edit distance is the slow measure), then to stricter
 * thresholds (fewer false positives on unseen data).
 */
export function bestRules(pairs: readonly Measured[]): { rules: Rules; f1: number } {
  const labels = pairs.map((p) => p.label);
  let top: { rules: Rules; f1: number; cost: number } | null = null;
  for (const maxDistance of DISTANCES) {
    for (const minCosine of COSINES) {
      for (const minEditSimilarity of EDITS) {
        if (maxDistance === null && minCosine === null && minEditSimilarity === null) continue;
        const rules = { maxDistance, minCosine, minEditSimilarity };
        const f1 = score(pairs.map((p) => applies(rules, p)), labels).f1;
        const n = [maxDistance, minCosine, minEditSimilarity].filter((x) => x !== null).length;
        const cost = n * 10 + (minEditSimilarity === null ? 0 : 5) - (minCosine ?? 0) - (minEditSimilarity ?? 0) + (maxDistance ?? 0) / 64;
        if (top === null || f1 > top.f1 + 0.002 || (f1 > top.f1 - 0.002 && cost < top.cost)) {
          top = { rules, f1, cost };
        }
      }
    }
  }
  if (top === null) throw new Error("calibrate: empty grid");
  return { rules: top.rules, f1: top.f1 };
}
