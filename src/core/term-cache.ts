/**
 * What the analysis needs to know about a word, looked up once per distinct
 * word and kept (issue 10): whether it is a stop word, its IDF and its XXH64
 * feature hash (seed 0). Without it a word costs three lookups per text, two of
 * them in large tables (the 350,000-term IDF dictionary, the hasher's memo of
 * up to 1M features), each a likely cache miss; words repeat heavily across
 * texts, so one lookup in a table of recent words replaces them.
 *
 * Every value is a pure function of the word (the stop-word set, IDF table
 * and hasher are fixed when the fingerprinter is built), so a cached record
 * gives exactly what the lookups would.
 */
import type { IdfTable } from "./idf.js";
import type { FeatureHasher } from "./simhash.js";
import type { StopWords } from "./stopwords.js";

export interface TermRecord {
  readonly stop: boolean;
  /** `idf.idf(term)`; 0 for a stop word (never read). */
  readonly idf: number;
  /** `hasher.hash(term, 0)`; 0 for a stop word (never read). */
  readonly hi: number;
  readonly lo: number;
}

export interface TermCache {
  /** The record of a term, computed on first sight. */
  get(term: string): TermRecord;
}

/** Records per generation: the cache holds at most twice this many. */
const LIMIT = 1 << 17;

const STOP: TermRecord = Object.freeze({ stop: true, idf: 0, hi: 0, lo: 0 });

/**
 * Two generations: new records go to the young map; when it is full it
 * becomes the old one (the previous old one is dropped) and a record found in
 * the old map moves back to the young one. A word seen at least once per
 * generation stays cached however many rare words pass by (a single map
 * cleared when full lost the hot words too: on 10,000 bench documents with
 * 270,000 distinct words and bigrams the misses were 12-19% of the analysis
 * thread's time).
 */
export function createTermCache(stopWords: StopWords, idf: IdfTable, hasher: FeatureHasher, limit = LIMIT): TermCache {
  let young = new Map<string, TermRecord>();
  let old = new Map<string, TermRecord>();
  return {
    get(term) {
      let r = young.get(term);
      if (r !== undefined) return r;
      r = old.get(term);
      if (r === undefined) {
        if (stopWords.has(term)) r = STOP;
        else {
          const h = hasher.hashUncached?.(term) ?? hasher.hash(term, 0);
          r = { stop: false, idf: idf.idf(term), hi: h.hi, lo: h.lo };
        }
      }
      if (young.size >= limit) {
        old = young;
        young = new Map();
      }
      young.set(term, r);
      return r;
    },
  };
}
