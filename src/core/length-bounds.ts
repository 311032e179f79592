/**
 * Which stored texts can be near-duplicates of a text, by length alone.
 *
 * Most verdict rules cannot hold between texts of very different lengths,
 * and say so before they measure anything (verdict.ts):
 * - the edit rule runs only when shorter / longer >= its threshold
 *   (`editRuleApplies`: edit similarity is at most that ratio);
 * - the Jaccard rule runs only when shorter / longer >= its threshold
 *   (`lengthsAllow`);
 * - the one-word rule needs a common opening and ending covering its share of
 *   the longer text in code units, and they lie inside the shorter one: with
 *   one code point taking one or two code units, shorter / longer in code
 *   points is at least half that share;
 * - the containment rule runs only when shorter / longer >= minContainedShare
 *   (`containmentApplies`);
 * - the simhash rule with a distance of at most 3 needs one of the four 16-bit
 *   segments equal (pigeonhole), whatever the lengths.
 * Only the cosine rule, and a simhash rule wider than 3 bits, hold at any
 * ratio (a text and the same text twice over have the same TF-IDF direction).
 *
 * `candidateLengths` turns this into the lengths (code points of normalized
 * text, `neardup.length`) against which some rule of the bucket the pair
 * falls in (by the shorter length) may hold without a shared segment. A
 * stored document outside them that shares no segment with the text is
 * never its duplicate, so a lookup that only decides (a write, a check)
 * need not read it. Ranges are widened by one code point at each end, so that
 * rounding never drops a length the rules would accept.
 *
 * `twoKeyLengths` is the part of those lengths that only the containment rule
 * reaches (shorter / longer from `minContainedShare` up to where another rule
 * starts): there a stored text reached through band keys alone must share two
 * of them with the text. A pair the rule calls a duplicate has nearly all of
 * the shorter text's shingles in the longer one, so the texts' shingle
 * Jaccard is about their length ratio (0.7 or more), and they share two of 16
 * bands of 3 rows with probability 1 - (1 - J^3)^16 - 16 J^3 (1 - J^3)^15,
 * 0.989 at J = 0.7, against 0.999 for one; lookups that took them with one key
 * read about a quarter more engine hits at 1M stored documents (docs/benchmarks.md).
 */
import type { VerdictBucket, VerdictOptions } from "./verdict.js";

/** Inclusive range of lengths; `hi` may be Infinity. */
export type LengthRange = readonly [lo: number, hi: number];

/** The smallest shorter / longer ratio at which a rule of `b` other than the simhash rule (<= 3 bits) can hold; 0 when any ratio can, Infinity when none can. */
export function minLengthRatio(b: VerdictBucket): number {
  if (b.minCosine !== null) return 0;
  if (b.maxDistance !== null && b.maxDistance > 3) return 0;
  const ratios: number[] = [];
  if (b.minEditSimilarity !== null) ratios.push(b.minEditSimilarity);
  if (b.minJaccard != null) ratios.push(b.minJaccard);
  if (b.minWordShare != null) ratios.push(b.minWordShare / 2);
  if (b.minContainment != null && b.minContainedShare != null) ratios.push(b.minContainedShare);
  return ratios.length === 0 ? Infinity : Math.max(0, Math.min(...ratios));
}

/** Merges ranges into sorted, disjoint ones (adjacent ranges join). */
export function mergeLengthRanges(ranges: readonly LengthRange[]): LengthRange[] {
  const sorted = [...ranges].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/**
 * The lengths a stored text must have for a rule to call it a duplicate of a
 * text of `length` code points when their simhashes share no 16-bit segment;
 * undefined when every length may be (no bound).
 */
export function candidateLengths(options: VerdictOptions, length: number): LengthRange[] | undefined {
  const L = Math.max(0, Math.floor(length));
  const ranges: LengthRange[] = [];
  // Stored texts no longer than the query: the bucket is the stored text's.
  let from = 0;
  for (const b of options.buckets) {
    const isLast = b === options.buckets[options.buckets.length - 1];
    const to = Math.min(L, isLast ? Infinity : Math.ceil(b.maxLength) - 1); // whole lengths of this bucket (< maxLength), up to L
    if (to >= from) {
      const ratio = minLengthRatio(b);
      if (ratio !== Infinity) ranges.push([Math.max(from, Math.ceil(ratio * L) - 1), to]);
    }
    if (!isLast) from = Math.max(from, Math.ceil(b.maxLength));
    if (from > L) break;
  }
  // Longer stored texts: the bucket is the query's.
  const own = options.buckets.find((b) => L < b.maxLength) ?? options.buckets[options.buckets.length - 1]!;
  const ratio = minLengthRatio(own);
  if (ratio === 0) ranges.push([L + 1, Infinity]);
  else if (ratio !== Infinity) ranges.push([L + 1, Math.floor(L / ratio) + 1]);
  const merged = mergeLengthRanges(ranges.filter(([lo, hi]) => lo <= hi));
  if (merged.length === 1 && merged[0]![0] <= 0 && merged[0]![1] === Infinity) return undefined;
  return merged;
}

/** Whether `length` lies in one of `ranges` (undefined: no bound). */
export function lengthAllowed(ranges: readonly LengthRange[] | undefined, length: number): boolean {
  if (ranges === undefined) return true;
  for (const [lo, hi] of ranges) if (length >= lo && length <= hi) return true;
  return false;
}

/** Ranges of `a` that lie in no range of `b` (both sorted and disjoint, as {@link mergeLengthRanges} makes them). */
export function subtractLengthRanges(a: readonly LengthRange[], b: readonly LengthRange[]): LengthRange[] {
  const out: LengthRange[] = [];
  for (const [lo, hi] of a) {
    let from = lo;
    for (const [blo, bhi] of b) {
      if (bhi < from || blo > hi) continue;
      if (blo > from) out.push([from, blo - 1]);
      from = bhi + 1; // Infinity when b's range has no end
      if (from > hi || from === Infinity) break;
    }
    if (from <= hi && from !== Infinity) out.push([from, hi]);
  }
  return out;
}

const ANY_LENGTH: readonly LengthRange[] = [[0, Infinity]];

/**
 * The lengths of {@link candidateLengths} at which, of the rules that bound
 * lengths, only the containment rule can hold; undefined when there are none.
 * A stored text of such a length that shares no segment with the text is a
 * candidate only when it shares two of its band keys (see above).
 */
export function twoKeyLengths(options: VerdictOptions, length: number): LengthRange[] | undefined {
  if (!options.buckets.some((b) => b.minContainment != null && b.minContainedShare != null)) return undefined;
  const all = candidateLengths(options, length) ?? ANY_LENGTH;
  const buckets = options.buckets.map((b) => ({ ...b, minContainment: null, minContainedShare: null }));
  const others = candidateLengths({ ...options, buckets }, length) ?? ANY_LENGTH;
  const two = subtractLengthRanges(all, others);
  return two.length > 0 ? two : undefined;
}

/** {@link candidateLengths} and {@link twoKeyLengths} of one length. */
export interface LengthBounds {
  readonly lengths: readonly LengthRange[] | undefined;
  readonly twoKeyLengths: readonly LengthRange[] | undefined;
}

/** Lengths whose bounds a memo keeps; it starts again when full. */
const MEMO_LIMIT = 1 << 14;

/**
 * {@link candidateLengths} and {@link twoKeyLengths} for `options`, kept by
 * length: both are pure functions of the two, and a write's lookup needs them
 * for every document (about 5 µs a length, and garbage). The bounds returned
 * are frozen and shared between callers.
 */
export function lengthBoundsOf(options: VerdictOptions): (length: number) => LengthBounds {
  const memo = new Map<number, LengthBounds>();
  const frozen = (ranges: LengthRange[] | undefined): readonly LengthRange[] | undefined =>
    ranges && Object.freeze(ranges.map((r) => Object.freeze(r) as LengthRange));
  return (length) => {
    let bounds = memo.get(length);
    if (bounds === undefined) {
      bounds = Object.freeze({ lengths: frozen(candidateLengths(options, length)), twoKeyLengths: frozen(twoKeyLengths(options, length)) });
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(length, bounds);
    }
    return bounds;
  };
}
