/**
 * The worker pool, the one set of worker threads of a process (issue 10):
 * `Fingerprinter.analyze` and the /v1/fingerprint and /v1/compare reports on
 * worker threads (piscina), so that analysis uses every core and never blocks
 * the event loop. Each worker
 * builds its own fingerprinter from the same portable options; analyses come
 * back packed (`PackedAnalysis`, with their sketch's terms) and get their lazy
 * Maps and `features` again here (`Fingerprinter.fromData`), so they are
 * interchangeable with in-thread ones.
 *
 * At most `maxPending` texts are in work or queued on the threads; calls
 * beyond it wait their turn in arrival order (`Admission`), up to `maxWaiting`
 * texts and `maxWaitMs` each, and are then refused with NeardupError
 * OVERLOADED (HTTP 503, or a per-item 429 on the proxy, with Retry-After):
 * parallel bulk requests slow down before any is refused, and nothing is
 * queued without limit.
 */
import { Piscina } from "piscina";
import { NeardupError } from "../core/errors.js";
import { Admission } from "./admission.js";
import type { Analysis, Fingerprinter, FingerprinterOptions } from "../core/fingerprinter.js";
import type { AnalyzeItem, AnalyzeOptions, AnalyzeOutcome, Analyzer } from "./analyzer.js";
import { fromErrorData, portableOptions, unpackAnalysis } from "./protocol.js";
import type { AnalyzeResult, AnalyzeTask, ReportResult } from "./protocol.js";
import type { ReportJob } from "./reports.js";

export interface AnalyzerPoolOptions {
  /** Worker threads, >= 1. */
  threads: number;
  /** The options the caller built `fingerprinter` with; data-only (see `PortableFingerprinterOptions`). Default {}. */
  options?: FingerprinterOptions;
  /** Most texts in work or queued on the threads at once. Default 1,024 per thread. */
  maxPending?: number;
  /** Most texts waiting for admission beyond `maxPending` (then OVERLOADED at once). Default 8 x `maxPending`. */
  maxWaiting?: number;
  /** Longest a call waits for admission (then OVERLOADED). Default 5,000 ms. */
  maxWaitMs?: number;
  /** Most texts sent to a worker in one message by `analyzeMany`. Default 32. */
  batchSize?: number;
}

/** A text every worker analyzes at start: proves it loaded and agrees with this thread's fingerprinter. */
const PROBE = "neardup 探针：Workers agree with the main thread，51区。";

/**
 * The worker module: the compiled `worker.js` beside this file or, under tsx
 * or vitest (this file is `.ts`), `tsx-worker.mjs`, which registers tsx's
 * loader in the new thread (a worker does not inherit the parent's module
 * hooks) and then imports `worker.ts`.
 */
function workerModule(): { filename: string; module?: string } {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return { filename: new URL("./worker.js", here).href };
  return { filename: new URL("./tsx-worker.mjs", here).href, module: new URL("./worker.ts", here).href };
}

/**
 * How long `close()` waits for the tasks handed to the threads (at most `maxPending` texts, seconds of
 * work); past it the threads are terminated anyway.
 */
const CLOSE_TIMEOUT_MS = 60_000;

async function settledWithin(tasks: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  await Promise.race([Promise.allSettled(tasks), timeout]);
  clearTimeout(timer);
}

/**
 * Starts `threads` workers and waits until each has loaded its dictionaries
 * and analyzed a probe text exactly as `fingerprinter` does.
 *
 * @throws NeardupError INVALID_CONFIG when the options cannot cross to a worker or the workers disagree.
 */
export async function createAnalyzerPool(fingerprinter: Fingerprinter, pool: AnalyzerPoolOptions): Promise<Analyzer> {
  const { threads } = pool;
  if (!Number.isInteger(threads) || threads < 1) throw new NeardupError("INVALID_CONFIG", `threads must be a positive integer, got ${threads}`, { field: "threads" });
  const maxPending = pool.maxPending ?? 1024 * threads;
  const batchSize = pool.batchSize ?? 32;
  const options = portableOptions(pool.options ?? {});
  const { filename, module } = workerModule();
  const piscina = new Piscina({
    filename,
    minThreads: threads,
    maxThreads: threads,
    maxQueue: maxPending,
    workerData: { options, module },
  });
  // A worker that dies fails the tasks it held (they reject) and piscina starts
  // another; without a listener the pool's 'error' event would end the process.
  piscina.on("error", () => undefined);
  const gate = new Admission({ limit: maxPending, maxWaiting: pool.maxWaiting ?? 8 * maxPending, maxWaitMs: pool.maxWaitMs ?? 5000 });
  let closed = false;

  const admit = async (n: number): Promise<void> => {
    if (closed) throw new NeardupError("ENVIRONMENT", "analyzer pool is closed");
    await gate.acquire(n);
  };

  // Every task handed to piscina until it settles: close() waits for them before it stops the threads.
  const inFlight = new Set<Promise<unknown>>();
  const send = (task: AnalyzeTask | { kind: "report"; job: ReportJob }): Promise<unknown> => {
    const p = piscina.run(task);
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
    return p;
  };

  const run = async (task: AnalyzeTask): Promise<AnalyzeResult> => {
    try {
      return (await send(task)) as AnalyzeResult;
    } finally {
      gate.release(task.texts.length);
    }
  };

  // Vectors left out by the worker are computed again here, from the same text, if something reads them.
  const outcome = (r: AnalyzeResult[number], item: AnalyzeItem): AnalyzeOutcome =>
    r.ok ? fingerprinter.fromData(unpackAnalysis(r.packed, () => fingerprinter.analyze(item.text, item.field))) : fromErrorData(r.error);

  const analyzer: Analyzer = {
    threads,
    async analyze(text: string, field?: string): Promise<Analysis> {
      await admit(1);
      const result = outcome((await run({ kind: "analyze", texts: [text], fields: [field] }))[0]!, { text, field });
      if (result instanceof NeardupError) throw result;
      return result;
    },
    async analyzeMany(items: readonly AnalyzeItem[], options: AnalyzeOptions = {}): Promise<AnalyzeOutcome[]> {
      if (items.length === 0) return [];
      await admit(items.length);
      const size = Math.max(1, Math.min(batchSize, Math.ceil(items.length / threads)));
      const vectors = options.vectors ?? true;
      const tasks: Promise<AnalyzeResult>[] = [];
      for (let i = 0; i < items.length; i += size) {
        const part = items.slice(i, i + size);
        tasks.push(run({ kind: "analyze", texts: part.map((x) => x.text), fields: part.map((x) => x.field), vectors }));
      }
      const results = await Promise.all(tasks);
      return results.flat().map((r, i) => outcome(r, items[i]!));
    },
    async report(job: ReportJob): Promise<unknown> {
      await admit(1);
      let result: ReportResult;
      try {
        result = (await send({ kind: "report", job })) as ReportResult;
      } finally {
        gate.release(1);
      }
      if (!result.ok) throw fromErrorData(result.error);
      return result.report;
    },
    load: () => ({ inWork: gate.pending, waiting: gate.waiting, refused: gate.refused }),
    async close() {
      closed = true;
      gate.refuseAll(new NeardupError("ENVIRONMENT", "analyzer pool is closed"));
      // The tasks already handed over are finished, then the threads stop. Never terminate a thread in work:
      // one stopped inside jieba's native cut aborted the whole process (SIGABRT, "terminate called after throwing").
      await settledWithin([...inFlight], CLOSE_TIMEOUT_MS);
      await piscina.destroy();
    },
  };

  // Every worker loads its dictionaries at start; the probe tasks wait for them and check agreement.
  try {
    const expected = fingerprinter.analyze(PROBE);
    const probes = await Promise.all(Array.from({ length: threads }, () => analyzer.analyze(PROBE)));
    for (const p of probes) {
      if (p.hex !== expected.hex || p.lsh.join() !== expected.lsh.join()) {
        throw new NeardupError("INVALID_CONFIG", `worker threads fingerprint differently from the main thread (${p.hex} vs ${expected.hex}): give the pool the options the fingerprinter was built with`, { field: "options" });
      }
    }
  } catch (err) {
    await piscina.destroy();
    throw err;
  }
  return analyzer;
}
