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

/** Records kept before the cache is cleared. */
const LIMIT = 1 << 17;

const STOP: TermRecord = Object.freeze({ stop: true, idf: 0, hi: 0, lo: 0 });

export function createTermCache(stopWords: StopWords, idf: IdfTable, hasher: FeatureHasher, limit = LIMIT): TermCache {
  const records = new Map<string, TermRecord>();
  return {
    get(term) {
      let r = records.get(term);
      if (r === undefined) {
        if (stopWords.has(term)) r = STOP;
        else {
          const h = hasher.hashUncached?.(term) ?? hasher.hash(term, 0);
          r = { stop: false, idf: idf.idf(term), hi: h.hi, lo: h.lo };
        }
        if (records.size >= limit) records.clear();
        records.set(term, r);
      }
      return r;
    },
  };
}
