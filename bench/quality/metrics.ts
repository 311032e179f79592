/** Precision, recall and F1 of binary decisions against labels. */
export interface Scores {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  f1: number;
}

export function score(decisions: readonly boolean[], labels: readonly (0 | 1)[]): Scores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  decisions.forEach((d, i) => {
    const y = labels[i] === 1;
    if (d && y) tp++;
    else if (d) fp++;
    else if (y) fn++;
    else tn++;
  });
  // Conventions: precision of no positive decisions is 1, recall with no positives is 1.
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, fn, tn, precision, recall, f1 };
}

export interface CurvePoint {
  threshold: number;
  precision: number;
  recall: number;
  f1: number;
}

/**
 * Scores a real-valued similarity at each threshold. `higherIsCloser`: a pair
 * is a duplicate when value >= threshold (cosine) or, if false, when
 * value <= threshold (Hamming distance).
 */
export function curve(values: readonly number[], labels: readonly (0 | 1)[], thresholds: readonly number[], higherIsCloser: boolean): CurvePoint[] {
  return thresholds.map((threshold) => {
    const s = score(values.map((v) => (higherIsCloser ? v >= threshold : v <= threshold)), labels);
    return { threshold, precision: s.precision, recall: s.recall, f1: s.f1 };
  });
}

export function best(points: readonly CurvePoint[]): CurvePoint {
  return points.reduce((a, b) => (b.f1 > a.f1 ? b : a));
}

/** Thresholds lo, lo+step, ..., hi (rounded to avoid float drift). */
export function range(lo: number, hi: number, step: number): number[] {
  const out: number[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) out.push(Math.round(v * 1000) / 1000);
  return out;
}
