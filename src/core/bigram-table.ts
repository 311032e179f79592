/**
 * Fast path for the short-text bigram features (spec §4.4) on the simhash hot path.
 *
 * `addBigramFeatures` builds a Map keyed by `" " + bigram` strings: one string
 * concatenation, one string hash and one Map update per character, then a
 * second Map for the features. Here a bigram of two BMP code units c1 c2 is
 * the integer key (c1 << 16) | c2 in an open-addressing table (typed arrays,
 * linear probing) that also caches the XXH64 halves of its feature key across
 * documents; counts for the current document sit in the same slots. Nothing
 * is allocated per character, and the hash of a bigram already seen is a
 * table read.
 *
 * It gives exactly the features of `addBigramFeatures`: same bigrams, same
 * weights `(count / bigrams) * bigramIdf`, added in order of first occurrence.
 * Texts it does not handle (surrogate pairs, U+0000, a single character,
 * texts longer than half the table) return false and take the Map path; a
 * property test checks that both give the same simhash.
 */
import { BIGRAM_PREFIX } from "./short-text.js";
import type { FeatureHasher } from "./simhash.js";
import { quantizeWeight } from "./simhash.js";
import type { SimhashAccumulator } from "./simhash-accumulator.js";

/** Default table size: 2^19 slots (8 MB), cleared when half full (262,144 distinct bigrams). */
const DEFAULT_BITS = 19;

export interface BigramTable {
  /**
   * Adds the bigram features of `normalized` to `acc`. Returns false, having
   * added nothing, for a text it does not handle (see above).
   */
  addBigrams(acc: SimhashAccumulator, normalized: string, bigramIdf: number): boolean;
}

/**
 * Words per slot in the table: the key (c1 << 16) | c2 (0 = empty; U+0000 is
 * never a key), the hash halves hi and lo of its feature key, and the count in
 * the current document (0 outside addBigrams). One slot is 16 bytes, so a
 * probe touches one cache line for all four, not four arrays.
 */
const SLOT = 4;
const KEY = 0;
const HI = 1;
const LO = 2;
const COUNT = 3;

/** A bigram table whose cached hashes come from `hasher` (seed 0). */
export function createBigramTable(hasher: FeatureHasher, bits = DEFAULT_BITS): BigramTable {
  const size = 1 << bits;
  const mask = size - 1;
  const limit = size >>> 1; // load factor <= 1/2 keeps probe sequences short
  // Allocated on first use: a fingerprinter without short texts never pays for them.
  let table: Uint32Array | undefined; // SLOT words per slot, see above
  let order = new Int32Array(0); // word offsets of slots in order of first occurrence in the document
  let used = 0;
  // The table is the cache for bigram keys: keep them out of the hasher's word cache.
  const hash = hasher.hashUncached ?? ((f: string) => hasher.hash(f, 0));

  /** The word offset of key c1 c2's slot, inserting it (and hashing its feature key) when new. */
  const slotOf = (t: Uint32Array, c1: number, c2: number): number => {
    const key = ((c1 << 16) | c2) >>> 0;
    // Fibonacci hashing: the top bits of key * 2^32 / phi spread neighbouring code points.
    let h = Math.imul(key, 0x9e3779b1) >>> (32 - bits);
    for (;;) {
      const k = t[h * SLOT + KEY]!;
      if (k === key) return h * SLOT;
      if (k === 0) break;
      h = (h + 1) & mask;
    }
    const at = h * SLOT;
    t[at + KEY] = key;
    const fp = hash(BIGRAM_PREFIX + String.fromCharCode(c1, c2));
    t[at + HI] = fp.hi;
    t[at + LO] = fp.lo;
    used++;
    return at;
  };

  return {
    addBigrams(acc, normalized, bigramIdf) {
      const len = normalized.length;
      if (len > limit) return false;
      if (table === undefined) {
        table = new Uint32Array(size * SLOT);
        order = new Int32Array(limit);
      }
      const t = table;
      // A document adds at most `len` keys; clearing between documents keeps every slot valid within one.
      if (used + len > limit) {
        t.fill(0);
        used = 0;
      }
      let distinct = 0;
      let bigrams = 0;
      let prev = -1;
      for (let i = 0; i < len; i++) {
        const c = normalized.charCodeAt(i);
        if (c === 0x20) continue; // spaces are removed before taking bigrams
        if (c === 0 || (c & 0xf800) === 0xd800) {
          // U+0000 would be the empty key; a surrogate is half a code point.
          for (let k = 0; k < distinct; k++) t[order[k]! + COUNT] = 0;
          return false;
        }
        if (prev >= 0) {
          const at = slotOf(t, prev, c);
          if (t[at + COUNT]++ === 0) order[distinct++] = at;
          bigrams++;
        }
        prev = c;
      }
      if (bigrams === 0) return false; // one character: its own "bigram", left to the Map path
      for (let k = 0; k < distinct; k++) {
        const at = order[k]!;
        // Exactly addBigramFeatures' weight: (count / total) * bigramIdf.
        const q = quantizeWeight((t[at + COUNT]! / bigrams) * bigramIdf);
        t[at + COUNT] = 0;
        if (q !== 0) acc.add(t[at + HI]!, t[at + LO]!, q);
      }
      return true;
    },
  };
}
