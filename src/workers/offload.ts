/**
 * The service's analyzer (issues 10 and 15): one pool of worker threads for
 * everything that analyses text off the event loop — the analyses of write
 * requests, the large texts of /v1/check and /v1/search, and the reports of
 * /v1/fingerprint and /v1/compare — and this thread for small work, where a
 * hop to another thread would cost more than it saves.
 *
 * With `workers` >= 2 (NEARDUP_WORKERS) the pool has that many threads and
 * takes every `analyzeMany` (the analyses of write requests use every core);
 * with 0 or 1 it has one thread, started on first use, for large work only.
 * Either way, work over `inlineMaxChars` characters never runs on the event
 * loop: a big text cannot stall /livez or other requests.
 */
import type { Analysis, Fingerprinter, FingerprinterOptions } from "../core/fingerprinter.js";
import { createInThreadAnalyzer } from "./analyzer.js";
import type { AnalyzeItem, AnalyzeOptions, AnalyzeOutcome, Analyzer } from "./analyzer.js";
import { createAnalyzerPool } from "./pool.js";
import { reportSize } from "./reports.js";
import type { ReportJob } from "./reports.js";

export interface OffloadOptions {
  /** NEARDUP_WORKERS: pool threads; 0 or 1 = one thread, for large work only. */
  workers: number;
  /** The options `fingerprinter` was built with (the workers build theirs from them). Default {}. */
  options?: FingerprinterOptions;
  /** Work on at most this many characters (UTF-16 code units) may run on the event loop (a few ms). Default 3,000. */
  inlineMaxChars?: number;
  /** Most texts waiting or in work in the pool (then OVERLOADED). Default 1,024 per thread. */
  maxPending?: number;
}

export interface OffloadingAnalyzer extends Analyzer {
  /** Starts the pool now (loading its dictionaries), so the first large request does not wait for it. */
  warm(): Promise<void>;
}

export function createOffloadingAnalyzer(fingerprinter: () => Promise<Fingerprinter>, setup: OffloadOptions): OffloadingAnalyzer {
  const threads = Math.max(1, setup.workers);
  const inlineMaxChars = setup.inlineMaxChars ?? 3000;
  const everyBulkOnPool = setup.workers > 1;
  let pool: Promise<Analyzer> | undefined;
  let started: Analyzer | undefined;
  let inThread: Analyzer | undefined;
  let closed = false;

  const getPool = (): Promise<Analyzer> => {
    pool ??= fingerprinter().then((fp) =>
      createAnalyzerPool(fp, { threads, options: setup.options ?? {}, ...(setup.maxPending === undefined ? {} : { maxPending: setup.maxPending }) }).then((p) => (started = p)),
    );
    // A pool that failed to start is tried again on the next large request.
    pool.catch(() => {
      pool = undefined;
    });
    return pool;
  };
  const local = async (): Promise<Analyzer> => (inThread ??= createInThreadAnalyzer(await fingerprinter()));

  return {
    threads,
    async analyze(text: string, field?: string): Promise<Analysis> {
      return (text.length > inlineMaxChars ? await getPool() : await local()).analyze(text, field);
    },
    async analyzeMany(items: readonly AnalyzeItem[], options?: AnalyzeOptions): Promise<AnalyzeOutcome[]> {
      const chars = items.reduce((n, x) => n + x.text.length, 0);
      const onPool = items.length > 0 && (everyBulkOnPool || chars > inlineMaxChars);
      return (onPool ? await getPool() : await local()).analyzeMany(items, options);
    },
    async report(job: ReportJob): Promise<unknown> {
      return (reportSize(job) > inlineMaxChars ? await getPool() : await local()).report(job);
    },
    load: () => started?.load?.(),
    async warm() {
      await getPool();
    },
    async close() {
      if (closed) return;
      closed = true;
      const p = pool;
      pool = undefined;
      started = undefined;
      await inThread?.close();
      if (p) await (await p.catch(() => undefined))?.close();
    },
  };
}
