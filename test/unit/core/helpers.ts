import { createFingerprinter } from "../../../src/core/index.js";
import type { Fingerprinter } from "../../../src/core/index.js";

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
