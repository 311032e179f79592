/** The embedded index: segment tables over typed arrays (see fingerprint-table.ts). */
export { SegmentIndex, MAX_RADIUS, MAX_ID_LENGTH } from "./segment-index.js";
export type { IndexEntry, IndexMatch } from "./segment-index.js";
export { FingerprintTable, MAX_SEQ } from "./fingerprint-table.js";
export type { Hits } from "./fingerprint-table.js";
export { INDEX_FORMAT_VERSION } from "./persist.js";
export { segmentMasks, segmentSlack } from "./neighbours.js";
export { LshTable } from "./lsh-table.js";
