export { cosine, charCosine, charCounts } from "./cosine.js";
export { levenshtein, editSimilarity } from "./levenshtein.js";
export { charShingles, jaccard, shingleJaccard } from "./jaccard.js";
export { trigramSet, setJaccard, trigramJaccard, differingMiddle, windowCoverage } from "./spread.js";
export type { DifferingMiddle } from "./spread.js";
export { editDistanceLowerBound, editSimilarityUpperBound } from "./edit-bound.js";
