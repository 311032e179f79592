/**
 * The Levenshtein distance when it is at most `k`, in O(ceil(m / 32) (k + 32))
 * word operations instead of O(ceil(m / 32) n): the edit rule only asks
 * whether a pair's distance is within (1 - threshold) x length, and needs the
 * exact value only when it is (the similarity a report shows).
 *
 * Ukkonen's band (1985) on Myers' bit-parallel columns (Myers 1999, in
 * Hyyrö's block formulation), pattern `a` (m rows, the shorter text) against
 * text `b` (n columns), Δ = m - n. A path from (0, 0) to (m, n) through cell
 * (i, j) costs at least D[i][j] + |(m - i) - (n - j)| >= |i - j| +
 * |Δ - (i - j)|, so a path of cost <= k only visits cells whose diagonal
 * δ = i - j lies in [ceil((Δ - k) / 2), floor((Δ + k) / 2)]: a band k + 1
 * rows high, not 2k + 1.
 *
 * The pattern is cut in blocks of 32 rows, each run over the columns where
 * some of its rows are in the band (block by block, as fastest-levenshtein
 * runs its blocks). Outside the band the block starts from, or reads from the
 * block above, values of real paths (straight down from the row above,
 * straight along a row), which are never below the true distances: every
 * value computed is >= the true one, and equal to it on any path of cost
 * <= k, since such a path stays in the band. So the result is exact when it
 * is <= k, and > k otherwise.
 *
 * After each block, the best value in its bottom row plus what the rest must
 * still cost (the difference of the remaining lengths) bounds the distance
 * from below; once it passes k the pair is out (a pair that differs early
 * stops early).
 */
import { greedyWithin } from "./greedy.js";

/** Pattern bit masks per code point for one block, all zero between blocks (4.4 MB, allocated on first use). */
let peq: Int32Array | undefined;
/** Values of the row above the current block (D[top - 1][j]) and of its bottom row, by column. */
let rowAbove = new Int32Array(1024);
let rowBelow = new Int32Array(1024);
/** The current pair's code points: a surrogate pair is one symbol, and neither text is copied as a string. */
let xs = new Int32Array(1024);
let ys = new Int32Array(1024);

/** An encoded pair: lengths in code points, and the middles left after a common prefix and suffix (`xs[start..endA)`, `ys[start..endB)`). */
interface EncodedPair {
  m: number;
  n: number;
  start: number;
  endA: number;
  endB: number;
}

/** Writes both texts' code points into `xs` and `ys`, and finds their common prefix and suffix (they never change the distance). */
function encodePair(a: string, b: string): EncodedPair {
  if (xs.length < a.length) xs = new Int32Array(a.length);
  if (ys.length < b.length) ys = new Int32Array(b.length);
  const m = codePointsInto(a, xs);
  const n = codePointsInto(b, ys);
  let start = 0;
  let endA = m;
  let endB = n;
  const shorter = Math.min(m, n);
  while (start < shorter && xs[start] === ys[start]) start++;
  while (endA > start && endB > start && xs[endA - 1] === ys[endB - 1]) {
    endA--;
    endB--;
  }
  return { m, n, start, endA, endB };
}

function codePointsInto(text: string, out: Int32Array): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!; // a lone surrogate is a code point of its own
    if (cp > 0xffff) i++;
    out[n++] = cp;
  }
  return n;
}

/**
 * The Levenshtein distance of `a` and `b` in code points when it is at most
 * `k`; otherwise some number greater than `k` (not the distance).
 */
export function levenshteinWithin(a: string, b: string, k: number): number {
  if (!(k >= 0)) return 1; // no distance is within a negative bound
  if (a === b) return 0;
  const pair = encodePair(a, b);
  return fewEdits(pair, Math.floor(k)) ?? within(pair, Math.floor(k));
}

/** Edits up to which the furthest-diagonal search (greedy.ts) goes before the band: past it, the band is cheaper. */
const GREEDY_CAP = 16;

/** The distance of a pair at most min(k, GREEDY_CAP) edits apart, found by furthest diagonals; undefined when it is further. */
function fewEdits({ start, endA, endB }: EncodedPair, k: number): number | undefined {
  const cap = Math.min(k, GREEDY_CAP);
  if (cap < 0) return undefined;
  const d = greedyWithin(xs, start, endA, ys, start, endB, cap);
  return d <= cap ? d : undefined;
}

/**
 * `editSimilarity(a, b)` (1 - distance / longer length, in code points) when
 * it may reach `min`: exact whenever the distance is within one of
 * (1 - min) x the longer length; undefined when the distance is past that,
 * where the similarity is below `min` by more than any rounding.
 * `lowerBound`, a known lower bound on the distance (the code-point bound),
 * skips the search for a few edits when it is past them.
 */
export function editSimilarityAtLeast(a: string, b: string, min: number, lowerBound = 0): number | undefined {
  if (a === b) return 1;
  const pair = encodePair(a, b);
  const longer = Math.max(pair.m, pair.n);
  // The furthest-diagonal search only when the distance may be small: failing, it costs a tenth of a band.
  const d = distanceUpTo(pair, Math.floor((1 - min) * longer) + 1, lowerBound <= GREEDY_CAP);
  return d === undefined ? undefined : 1 - d / longer;
}

/**
 * The Levenshtein distance of `a` and `b` in code points, exact: the band
 * starts at `FIRST_BAND` edits and is widened fourfold until it holds the
 * distance, which the longer length always does. A near-duplicate's distance
 * is found in a narrow band; a pair far apart drops each narrow band after a
 * few blocks (the early exit) and costs about one whole matrix.
 */
export function levenshteinBanded(a: string, b: string): number {
  if (a === b) return 0;
  const pair = encodePair(a, b);
  return distanceUpTo(pair, Math.max(pair.m, pair.n))!; // the longer length always holds the distance
}

/**
 * The Levenshtein distance of `a` and `b` in code points when it can be found
 * in about `cells` cells of the matrix; undefined when it cannot. Pairs whose
 * whole matrix (after the common prefix and suffix) is that small get their
 * distance whatever it is; longer pairs get the band that work pays for,
 * cells / rows - 33 edits high (a block of 32 rows runs over the band's
 * columns and its own), and their distance when it lies inside that band: so
 * two long near-duplicates get an exact answer for the price of two short
 * texts, and two long texts far apart a quick "undefined".
 */
export function levenshteinInBudget(a: string, b: string, cells: number): number | undefined {
  if (a === b) return 0;
  const pair = encodePair(a, b);
  const rows = Math.min(pair.endA, pair.endB) - pair.start;
  const columns = Math.max(pair.endA, pair.endB) - pair.start;
  if (rows * columns <= cells) return distanceUpTo(pair, Math.max(pair.m, pair.n));
  const k = Math.floor(cells / rows) - 33;
  if (k < columns - rows) return undefined; // the length difference alone is past the band
  return distanceUpTo(pair, k);
}

/**
 * The encoded pair's distance when it is at most `k`, else undefined: the
 * furthest-diagonal search for a few edits first (unless `few` is false),
 * then the band. The band's cost grows with its height, so a near-duplicate,
 * far inside `k`, is settled in a narrow band first, which is widened
 * fourfold until it holds the distance or reaches `k`.
 */
function distanceUpTo(pair: EncodedPair, k: number, few = true): number | undefined {
  const small = few ? fewEdits(pair, k) : undefined;
  if (small !== undefined) return small;
  for (let band = Math.min(k, FIRST_BAND); ; band = Math.min(k, band * 4)) {
    const d = within(pair, band);
    if (d <= band) return d;
    if (band === k) return undefined;
  }
}

/** The first band tried by `distanceUpTo` (distances up to this many edits). */
const FIRST_BAND = 48;

/** `levenshteinWithin` on the encoded pair's middles; the shorter is the pattern (rows): the cost is in its blocks. */
function within({ start, endA, endB }: EncodedPair, k: number): number {
  if (endA > endB) return banded(ys, start, endB, xs, start, endA, k);
  return banded(xs, start, endA, ys, start, endB, k);
}

function banded(a: Int32Array, as: number, ae: number, b: Int32Array, bs: number, be: number, k: number): number {
  const m = ae - as;
  const n = be - bs;
  const delta = m - n; // <= 0: a is the shorter
  if (-delta > k) return k + 1;
  if (m === 0) return n;
  const lo = Math.ceil((delta - k) / 2); // band of diagonals i - j
  const hi = Math.floor((delta + k) / 2);
  if (rowAbove.length < n + 1) {
    rowAbove = new Int32Array(n + 1);
    rowBelow = new Int32Array(n + 1);
  }
  const masks = (peq ??= new Int32Array(0x110000));
  let above = rowAbove;
  let below = rowBelow;
  // Row 0: D[0][j] = j, known on every column.
  let aboveFrom = 0;
  let aboveTo = n;
  for (let j = 0; j <= n; j++) above[j] = j;
  for (let top = 1; top <= m; top += 32) {
    const bottom = Math.min(m, top + 31);
    const h = bottom - top + 1;
    const last = 1 << (h - 1);
    for (let i = top; i <= bottom; i++) masks[a[as + i - 1]!] |= 1 << (i - top);
    const from = Math.max(1, top - hi);
    const to = Math.min(n, bottom - lo);
    // Column from - 1: straight down from the row above (a real path, so never below the truth).
    let score = above[from - 1]! + h;
    below[from - 1] = score;
    let best = score + Math.abs(delta - (bottom - (from - 1)));
    let pv = -1;
    let mv = 0;
    for (let j = from; j <= to; j++) {
      // The row above's horizontal delta; past the block above's columns, a step along its bottom row (+1).
      const hin = j <= aboveTo && j - 1 >= aboveFrom ? above[j]! - above[j - 1]! : 1;
      let eq = masks[b[bs + j - 1]!]!;
      const xv = eq | mv;
      if (hin < 0) eq |= 1;
      const xh = ((((eq & pv) + pv) | 0) ^ pv) | eq;
      let ph = mv | ~(xh | pv);
      let mh = pv & xh;
      if ((ph & last) !== 0) score++;
      else if ((mh & last) !== 0) score--;
      ph = (ph << 1) | (hin > 0 ? 1 : 0);
      mh = (mh << 1) | (hin < 0 ? 1 : 0);
      pv = mh | ~(xv | ph);
      mv = ph & xv;
      below[j] = score;
      const bound = score + Math.abs(delta - (bottom - j));
      if (bound < best) best = bound;
    }
    for (let i = top; i <= bottom; i++) masks[a[as + i - 1]!] = 0;
    if (best > k) return k + 1; // every path crosses this row: none of cost <= k is left
    [above, below] = [below, above];
    aboveFrom = from - 1;
    aboveTo = to;
  }
  const d = above[n]!;
  return d <= k ? d : k + 1;
}

