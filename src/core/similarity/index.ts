export { cosine, charCosine, charCounts } from "./cosine.js";
export { levenshtein, editSimilarity } from "./levenshtein.js";
export { charShingles, jaccard, shingleJaccard } from "./jaccard.js";
export { editDistanceLowerBound, editSimilarityUpperBound } from "./edit-bound.js";
