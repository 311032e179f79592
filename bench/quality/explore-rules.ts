/** Verdict rules of earlier releases, for the issue 14 comparisons (explore.ts, verdict-cost.ts). */
import type { VerdictOptions } from "../../src/core/index.js";

/** The issue 6 defaults: no Jaccard rule, no veto, medium edit 0.75, tiny cosine 0.7. */
export const ISSUE6_VERDICT: VerdictOptions = {
  middleVeto: null,
  buckets: [
    { name: "tiny", maxLength: 50, searchRadius: 3, maxDistance: null, minCosine: 0.7, minEditSimilarity: 0.85 },
    { name: "short", maxLength: 200, searchRadius: 3, maxDistance: null, minCosine: 0.95, minEditSimilarity: 0.8 },
    { name: "medium", maxLength: 1000, searchRadius: 3, maxDistance: 3, minCosine: null, minEditSimilarity: 0.75 },
    { name: "long", maxLength: 5000, searchRadius: 3, maxDistance: 3, minCosine: null, minEditSimilarity: 0.75 },
    { name: "huge", maxLength: Infinity, searchRadius: 3, maxDistance: 3, minCosine: 0.8, minEditSimilarity: null },
  ],
};
