/**
 * Analysis off the event loop (issues 10 and 15): one `Analyzer` interface,
 * in-thread or on the process's one pool of worker threads (piscina). The CLI
 * uses `createAnalyzer`; the service `createOffloadingAnalyzer` (small work in
 * this thread, large work and write requests on the pool).
 */
import { availableParallelism } from "node:os";
import type { Fingerprinter, FingerprinterOptions } from "../core/fingerprinter.js";
import { createInThreadAnalyzer } from "./analyzer.js";
import type { Analyzer } from "./analyzer.js";
import { createAnalyzerPool } from "./pool.js";

export { createInThreadAnalyzer } from "./analyzer.js";
export type { Analyzer, AnalyzeItem, AnalyzeOptions, AnalyzeOutcome, PoolLoad } from "./analyzer.js";
export { createAnalyzerPool } from "./pool.js";
export type { AnalyzerPoolOptions } from "./pool.js";
export { createOffloadingAnalyzer } from "./offload.js";
export type { OffloadingAnalyzer, OffloadOptions } from "./offload.js";
export { compareReport, fingerprintReport, reportSize, runReport } from "./reports.js";
export type { CompareJob, FingerprintJob, ReportJob } from "./reports.js";

/** Default number of workers: the cores this process may use. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/**
 * The analyzer for `workers` threads (NEARDUP_WORKERS): 0 or 1 analyze in
 * this thread with `fingerprinter`; more start a pool whose workers build
 * their fingerprinter from `options`, which must be the options `fingerprinter`
 * was built with.
 */
export async function createAnalyzer(fingerprinter: Fingerprinter, workers: number, options: FingerprinterOptions = {}): Promise<Analyzer> {
  if (workers <= 1) return createInThreadAnalyzer(fingerprinter);
  return createAnalyzerPool(fingerprinter, { threads: workers, options });
}
