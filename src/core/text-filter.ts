/**
 * Text filters (sketch format 2): a few hundred bytes kept in the sketch of a
 * text too long to carry itself, from which a lookup can tell that the edit
 * and Jaccard rules cannot hold for a pair without reading the text.
 *
 * Both bounds are exact (never below the measure they bound):
 * - Edit similarity. Levenshtein distance >= max(|a|, |b|) - C, where C is the
 *   number of code points the two texts have in common as multisets (each
 *   matched pair of an alignment is one equal code point). Counting code
 *   points in `CHAR_BUCKETS` hashed buckets can only raise the common count,
 *   so C_buckets = sum over buckets of min(count_a, count_b) >= C, and
 *   1 - (longer - C_buckets) / longer >= edit similarity. This is the q = 1
 *   bound of `characterBound` with colliding code points merged.
 * - Trigram Jaccard. |A ∩ B| <= I = sum over `GRAM_PARTS` hash partitions of
 *   min(distinct grams of A in it, of B in it), and J = |A ∩ B| / (|A| + |B|
 *   - |A ∩ B|) grows with |A ∩ B|, so I / (|A| + |B| - I) >= J. The grams are
 *   the ones `trigramJaccard` compares (spread.ts `sortedGrams`).
 * - Trigram containment, |A ∩ B| / min(|A|, |B|) <= I / min(|A|, |B|).
 *
 * A stored count saturates at its type's maximum, which then means "at least":
 * the bound takes the other side's count there.
 */
import { sortedGrams } from "./similarity/spread.js";

/** Code-point buckets of a filter. */
export const CHAR_BUCKETS = 256;
/** Hash partitions of the distinct trigrams. */
export const GRAM_PARTS = 64;
/** Bytes a filter takes in a sketch: u32 distinct grams, CHAR_BUCKETS x u8, GRAM_PARTS x u16. */
export const FILTER_BYTES = 4 + CHAR_BUCKETS + GRAM_PARTS * 2;
const CHAR_MAX = 0xff;
const PART_MAX = 0xffff;

export interface TextFilter {
  /** Code points of the text. */
  length: number;
  /** Code points per bucket (`charBucket`), saturated at 255 when stored. */
  chars: Uint8Array | Uint32Array;
  /** Distinct trigrams. */
  grams: number;
  /** Distinct trigrams per partition (`gramPart`), saturated at 65,535 when stored. */
  parts: Uint16Array | Uint32Array;
}

function charBucket(cp: number): number {
  return Math.imul(cp, 0x9e3779b1) >>> 24;
}

function gramPart(gram: number): number {
  return Math.imul(gram, 0x85ebca6b) >>> 26;
}

/** The exact (unsaturated) filter of a normalized text. */
export function textFilterOf(text: string): TextFilter {
  const chars = new Uint32Array(CHAR_BUCKETS);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    if (cp > 0xffff) i++;
    chars[charBucket(cp)]!++;
    length++;
  }
  const sorted = sortedGrams(text, 0, text.length);
  const parts = new Uint32Array(GRAM_PARTS);
  let grams = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && sorted[i] === sorted[i - 1]) continue;
    grams++;
    parts[gramPart(sorted[i]!)]!++;
  }
  return { length, chars, grams, parts };
}

/** Texts whose filters `textFilterOfText` keeps: more than a pipeline chunk of documents (100 by default). */
const MEMO_TEXTS = 256;
/** Recent texts' filters (cleared when full). */
let memo = new Map<string, TextFilter>();

/**
 * `textFilterOf`, remembering the filters of recent texts: a written
 * document's filter is built for its stored sketch and used again when its
 * lookup compares it with each of its candidates, often after the other
 * documents of its chunk. A filter is a pure function of the text, so a
 * remembered one is exactly what `textFilterOf` would build.
 */
export function textFilterOfText(text: string): TextFilter {
  let filter = memo.get(text);
  if (filter === undefined) {
    filter = textFilterOf(text);
    if (memo.size >= MEMO_TEXTS) memo = new Map();
    memo.set(text, filter);
  }
  return filter;
}

/** The filter of a text `textFilterOfText` built recently, without building one. */
export function knownTextFilter(text: string): TextFilter | undefined {
  return memo.get(text);
}

/**
 * Sum over buckets of the smaller count. A saturated count stands for "at
 * least": the other side's count bounds the bucket, and with both saturated
 * nothing does (Infinity; callers cap the sum by the totals).
 */
function commonCount(x: ArrayLike<number>, xMax: number, y: ArrayLike<number>, yMax: number): number {
  let common = 0;
  for (let i = 0; i < x.length; i++) {
    const a = x[i]!;
    const b = y[i]!;
    common += a >= xMax ? (b >= yMax ? Infinity : b) : b >= yMax ? a : Math.min(a, b);
  }
  return common;
}

function maxOf(values: Uint8Array | Uint16Array | Uint32Array): number {
  return values instanceof Uint8Array ? CHAR_MAX : values instanceof Uint16Array ? PART_MAX : Infinity;
}

/** An upper bound of `editSimilarity` of the two texts the filters were made from. */
export function editSimilarityBound(a: TextFilter, b: TextFilter): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  const common = Math.min(commonCount(a.chars, maxOf(a.chars), b.chars, maxOf(b.chars)), a.length, b.length);
  return 1 - (longer - common) / longer;
}

/** An upper bound of `trigramJaccard` of the two texts the filters were made from. */
export function trigramJaccardBound(a: TextFilter, b: TextFilter): number {
  if (a.grams === 0 && b.grams === 0) return 1;
  const shared = Math.min(commonCount(a.parts, maxOf(a.parts), b.parts, maxOf(b.parts)), a.grams, b.grams);
  return shared / (a.grams + b.grams - shared);
}

/** An upper bound of `trigramContainment` of the two filters' texts: I / min(|A|, |B|), with I as for the Jaccard bound. */
export function trigramContainmentBound(a: TextFilter, b: TextFilter): number {
  const smaller = Math.min(a.grams, b.grams);
  if (smaller === 0) return 1;
  return Math.min(commonCount(a.parts, maxOf(a.parts), b.parts, maxOf(b.parts)), smaller) / smaller;
}

/** Writes `f` (saturating its counts) at `offset`: FILTER_BYTES bytes. */
export function writeTextFilter(f: TextFilter, view: DataView, offset: number): void {
  view.setUint32(offset, f.grams, true);
  for (let i = 0; i < CHAR_BUCKETS; i++) view.setUint8(offset + 4 + i, Math.min(f.chars[i]!, CHAR_MAX));
  for (let i = 0; i < GRAM_PARTS; i++) view.setUint16(offset + 4 + CHAR_BUCKETS + i * 2, Math.min(f.parts[i]!, PART_MAX), true);
}

/** Reads a filter written by `writeTextFilter` for a text of `length` code points. */
export function readTextFilter(view: DataView, offset: number, length: number): TextFilter {
  const chars = new Uint8Array(CHAR_BUCKETS);
  for (let i = 0; i < CHAR_BUCKETS; i++) chars[i] = view.getUint8(offset + 4 + i);
  const parts = new Uint16Array(GRAM_PARTS);
  for (let i = 0; i < GRAM_PARTS; i++) parts[i] = view.getUint16(offset + 4 + CHAR_BUCKETS + i * 2, true);
  return { length, chars, grams: view.getUint32(offset, true), parts };
}
