export { cosine, charCosine, charCounts } from "./cosine.js";
export { levenshtein, editSimilarity } from "./levenshtein.js";
export { editSimilarityAtLeast, levenshteinBanded, levenshteinInBudget, levenshteinWithin } from "./banded.js";
export { charShingles, jaccard, shingleJaccard } from "./jaccard.js";
export { trigramSet, setJaccard, trigramJaccard, trigramContainment, differingMiddle, differentEnding, windowCoverage, oneWord, oneWordSwap, MAX_WORD_UNITS, MAX_WORD_HAN } from "./spread.js";
export type { DifferingMiddle } from "./spread.js";
export { characterBound, characterDistanceLowerBound, editDistanceLowerBound, editSimilarityMayReach, editSimilarityUpperBound } from "./edit-bound.js";
