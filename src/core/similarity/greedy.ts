/**
 * Levenshtein distance by furthest reaching diagonals (Ukkonen 1985;
 * Landau and Vishkin 1986, without their suffix trees): for each number of
 * edits d and each diagonal δ = j - i, the furthest row reached with d edits,
 * then slid along equal characters. Its cost is about the text's length plus
 * d² diagonal steps, so a pair a few edits apart (an edited copy) is settled
 * far below the cost of the bit-parallel band, which runs every block of
 * rows whatever the distance; a pair further apart than `cap` stops after
 * (2 cap + 1) x cap short steps.
 */

/** Furthest rows of the previous and the current number of edits, by diagonal (reused; grown on demand). */
let previous = new Int32Array(64);
let current = new Int32Array(64);

/** Far below any row: a diagonal not reached yet. */
const NONE = -0x40000000;

/**
 * The Levenshtein distance of a[as..ae) and b[bs..be) (code points) when it
 * is at most `cap`; `cap + 1` otherwise. Both ranges should already be
 * stripped of their common prefix and suffix (nothing is wrong otherwise,
 * only slower).
 */
export function greedyWithin(a: Int32Array, as: number, ae: number, b: Int32Array, bs: number, be: number, cap: number): number {
  const m = ae - as;
  const n = be - bs;
  const goal = n - m; // the diagonal of (m, n)
  if (Math.abs(goal) > cap) return cap + 1;
  if (m === 0 || n === 0) return m + n; // within cap: |goal| is m + n here
  const width = 2 * cap + 3;
  if (previous.length < width) {
    previous = new Int32Array(width);
    current = new Int32Array(width);
  }
  const offset = cap + 1; // diagonal δ at index δ + offset; δ in [-cap - 1, cap + 1]
  previous.fill(NONE, 0, width);
  current.fill(NONE, 0, width);
  let prev = previous;
  let cur = current;
  // d = 0: slide along the main diagonal from (0, 0).
  let i = 0;
  while (i < m && i < n && a[as + i] === b[bs + i]) i++;
  if (i === m && goal === 0) return 0;
  prev[offset] = i;
  for (let d = 1; d <= cap; d++) {
    const lo = Math.max(-d, -m);
    const hi = Math.min(d, n);
    for (let k = lo; k <= hi; k++) {
      // Substitution (same diagonal, one row down), deletion (from k + 1, one row down), insertion (from k - 1, same row).
      let row = prev[k + offset]! + 1;
      const del = prev[k + 1 + offset]! + 1;
      const ins = prev[k - 1 + offset]!;
      if (del > row) row = del;
      if (ins > row) row = ins;
      if (row > m) row = m;
      if (row + k > n) row = n - k;
      if (row < 0 || row + k < 0) {
        cur[k + offset] = NONE;
        continue;
      }
      while (row < m && row + k < n && a[as + row] === b[bs + row + k]) row++;
      cur[k + offset] = row;
      if (k === goal && row === m) return d;
    }
    // Diagonals outside this round's range stay unreached for the next one.
    if (lo - 1 + offset >= 0) cur[lo - 1 + offset] = NONE;
    if (hi + 1 + offset < width) cur[hi + 1 + offset] = NONE;
    const t = prev;
    prev = cur;
    cur = t;
  }
  return cap + 1;
}
