/**
 * Analysis behind one interface, in this thread or in a pool of worker
 * threads (issue 10): the service and the CLI ask for analyses and never
 * care where they were computed. Both implementations give the same
 * analyses, so verdicts never depend on the number of workers.
 */
import { NeardupError, isNeardupError } from "../core/errors.js";
import type { Analysis, Fingerprinter } from "../core/fingerprinter.js";
import { runReport } from "./reports.js";
import type { ReportJob } from "./reports.js";

/** One text to analyze and the request field it came from (named in errors). */
export interface AnalyzeItem {
  text: string;
  /** Field named in a NeardupError for this text. Default `text`. */
  field?: string;
}

/** How `analyzeMany` may shortcut. */
export interface AnalyzeOptions {
  /**
   * False when the caller reads neither `termCounts` nor `vector` (the write
   * path reads the sketch, the simhash and the keys): a pool then does not
   * send them back across threads, and analyses the text again in this
   * thread if one is read after all. Default true.
   */
  vectors?: boolean;
}

/** The analysis of one item, or the NeardupError it was rejected with (bad input). */
export type AnalyzeOutcome = Analysis | NeardupError;

export interface Analyzer {
  /** Threads doing the work (1 for the in-thread analyzer). */
  readonly threads: number;
  /** Analyzes one text. Rejects with the NeardupError `Fingerprinter.analyze` throws, or OVERLOADED when the pool is full. */
  analyze(text: string, field?: string): Promise<Analysis>;
  /**
   * Analyzes many texts, in parallel where it can. Bad input does not fail the
   * call: that item's outcome is its NeardupError. Rejects as a whole (nothing
   * analyzed) with OVERLOADED when the pool cannot take them.
   */
  analyzeMany(items: readonly AnalyzeItem[], options?: AnalyzeOptions): Promise<AnalyzeOutcome[]>;
  /**
   * What /v1/fingerprint or /v1/compare answers for `job` (reports.ts). Rejects
   * with the NeardupError of bad input, or OVERLOADED when the pool is full.
   */
  report(job: ReportJob): Promise<unknown>;
  /** Stops the threads; later calls reject. */
  close(): Promise<void>;
  /** How loaded the worker pool is, for metrics; undefined without a pool (in-thread analysis). */
  load?(): PoolLoad | undefined;
}

/** The analysis pool's admission (admission.ts), in texts. */
export interface PoolLoad {
  /** Texts in work or queued on the threads. */
  inWork: number;
  /** Texts waiting for admission beyond that. */
  waiting: number;
  /** Texts refused (OVERLOADED) since the pool started. */
  refused: number;
}

/** The in-thread analyzer: `fingerprinter.analyze` behind the `Analyzer` interface (NEARDUP_WORKERS 0 or 1). */
export function createInThreadAnalyzer(fingerprinter: Fingerprinter): Analyzer {
  let closed = false;
  const check = (): void => {
    if (closed) throw new NeardupError("ENVIRONMENT", "analyzer is closed");
  };
  return {
    threads: 1,
    async analyze(text, field) {
      check();
      return fingerprinter.analyze(text, field);
    },
    async analyzeMany(items) {
      check();
      return items.map(({ text, field }) => {
        try {
          return fingerprinter.analyze(text, field);
        } catch (err) {
          if (isNeardupError(err)) return err;
          throw err;
        }
      });
    },
    async report(job) {
      check();
      return runReport(fingerprinter, job);
    },
    async close() {
      closed = true;
    },
  };
}
