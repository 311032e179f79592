import { createFingerprinter } from "../../../src/core/index.js";
import type { Analysis, Fingerprinter } from "../../../src/core/index.js";

let shared: Promise<Fingerprinter> | undefined;

/** One default fingerprinter per test file (loading jieba takes about a second). */
export function defaultFingerprinter(): Promise<Fingerprinter> {
  shared ??= createFingerprinter();
  return shared;
}

/** Runs fn and returns the NeardupError it throws (fails if it does not throw). */
export function thrown(fn: () => unknown): { code: string; message: string; field?: string } {
  try {
    fn();
  } catch (e) {
    return e as { code: string; message: string; field?: string };
  }
  throw new Error("expected an error");
}

/** Each pair with both texts analysed; pairs the input rules refuse (a lone surrogate) are left out, as the service never stores or checks them. */
export function* analysedPairs<P extends { a: string; b: string }>(fp: Fingerprinter, pairs: Iterable<P>): Generator<{ pair: P; a: Analysis; b: Analysis }> {
  for (const pair of pairs) {
    let a: Analysis;
    let b: Analysis;
    try {
      a = fp.analyze(pair.a);
      b = fp.analyze(pair.b);
    } catch {
      continue;
    }
    yield { pair, a, b };
  }
}
