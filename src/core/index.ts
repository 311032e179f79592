/** neardup core: pure text features, fingerprints and similarity. See docs/fingerprint-spec.md. */
export { NeardupError, isNeardupError, ERROR_CODES } from "./errors.js";
export type { ErrorCode, NeardupErrorOptions } from "./errors.js";
export * from "./fingerprint.js";
export { normalize, codePointLength } from "./normalize.js";
export { validateText, DEFAULT_MAX_TEXT_LENGTH } from "./validate.js";
export { createMixedTokenizer, createWordBoundaryTokenizer } from "./tokenize.js";
export type { Tokenizer, HanSegmenter } from "./tokenize.js";
export { createStopWords, parseStopWordList } from "./stopwords.js";
export type { StopWords } from "./stopwords.js";
export { ENGLISH_STOP_WORDS } from "./data/english-stop-words.js";
export { CorpusIdf, CorpusIdfBuilder, parseIdfDictionary, median, fnv1a32Hex } from "./idf.js";
export type { IdfTable, DictionaryIdf, CorpusIdfJson } from "./idf.js";
export { countTerms, tfidfVector, relevance } from "./tfidf.js";
export type { SparseVector } from "./tfidf.js";
export { createFeatureHasher, simhash64, simhash128, quantizeWeight, toHex128, WEIGHT_SCALE } from "./simhash.js";
export type { FeatureHasher, Fingerprint128 } from "./simhash.js";
export { segmentRadius, segmentNeighbours, neighboursForRadius } from "./neighbours.js";
export * from "./similarity/index.js";
export { charBigramCounts, addBigramFeatures, DEFAULT_SHORT_TEXT_LENGTH, BIGRAM_PREFIX } from "./short-text.js";
export { byTimeThenId, chooseRoot } from "./original.js";
export type { Dated } from "./original.js";
export { decide, bucketFor, reportedSimilarity, validateVerdictOptions, vetoedByMiddle, vetoedByEnding, DEFAULT_VERDICT_OPTIONS } from "./verdict.js";
export type { Verdict, VerdictBucket, VerdictOptions, Comparable, MiddleVeto } from "./verdict.js";
export {
  createFingerprinter,
  buildFingerprinter,
  validateFingerprinterOptions,
  FINGERPRINT_VERSION,
  analysisVersion,
  analysisData,
  lookupKeysOf,
} from "./fingerprinter.js";
export type { Fingerprinter, FingerprinterOptions, Analysis, AnalysisData, CoreResources } from "./fingerprinter.js";
export {
  LSH_VERSION,
  LEGACY_LSH_SCHEME,
  lshSchemeOf,
  comparableLshSchemes,
  lshSchemesComparable,
  LSH_SHINGLE_LENGTH,
  DEFAULT_LSH_OPTIONS,
  createLshKeyer,
  validateLshOptions,
  shingleHashes,
  minhashSignature,
  permutationSeeds,
  bandKeys,
  estimateJaccard,
  murmur3,
  fmix32,
} from "./lsh.js";
export type { LshOptions, LshKeyer } from "./lsh.js";
export { wordKeys, wordUnits, wordKey, WORD_KEYS_MAX_LENGTH, WORD_KEYS_MAX_UNITS, WORD_KEYS_MAX_UNIT } from "./word-keys.js";
export { blockKeys, blockKey, blockCount, BLOCK_KEYS_MIN_BLOCKS, lookupBlockKeys, LOOKUP_BLOCK_KEYS_MAX_LENGTH, LOOKUP_BLOCK_KEYS_MAX_INDELS } from "./block-keys.js";
export { SKETCH_VERSION, MAX_SKETCH_TERMS, DEFAULT_INLINE_TEXT_LENGTH, sketchOf, sketchCosine, encodeSketch, decodeSketch, editTextLimit, compareSketches, mayNeedText } from "./sketch.js";
export type { Sketch, Sketched, Sketchable } from "./sketch.js";
