/**
 * Runs analysis jobs: small ones at once on the event loop (a few ms at most),
 * large ones in one worker thread, queued, so no request holds the event loop
 * for long (/livez and every other request keep answering). The worker is
 * started on the first large job and restarted if it dies.
 */
import { Worker } from "node:worker_threads";
import { NeardupError, type ErrorCode } from "../../core/errors.js";
import type { Fingerprinter, FingerprinterOptions } from "../../core/fingerprinter.js";
import { jobSize, runJob, type AnalysisJob } from "./compute.js";

export interface AnalysisPoolOptions {
  fingerprinter: () => Promise<Fingerprinter>;
  /** Options for the worker's own fingerprinter (must match the main one). */
  fingerprinterOptions?: FingerprinterOptions;
  /** Jobs analysing at most this many characters run on the event loop. Default 3,000 (about 5 ms). */
  inlineMaxChars?: number;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** A worker from a .ts source (tsx in development and tests) or the built .js. */
function spawnWorker(options: FingerprinterOptions | undefined): Worker {
  const ts = import.meta.url.endsWith(".ts");
  const target = new URL(ts ? "./worker.ts" : "./worker.js", import.meta.url).href;
  if (!ts) return new Worker(new URL(target), { workerData: options });
  // Node cannot load .ts itself: a one-line bootstrap registers tsx first.
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import { register } from ${JSON.stringify(tsx)}; register(); await import(${JSON.stringify(target)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: options });
}

export class AnalysisPool {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly inlineMaxChars: number;

  constructor(private readonly options: AnalysisPoolOptions) {
    this.inlineMaxChars = options.inlineMaxChars ?? 3000;
  }

  /** Runs a job: inline when small (unless `worker` forces the worker), else in the worker. */
  async run(job: AnalysisJob, options: { worker?: boolean } = {}): Promise<unknown> {
    if (!options.worker && jobSize(job) <= this.inlineMaxChars) return runJob(await this.options.fingerprinter(), job);
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, job });
    });
  }

  /** Starts the worker and loads its fingerprinter now, so the first large request does not wait for it. */
  async warm(): Promise<void> {
    await this.run({ kind: "analyze", texts: ["warm up"] }, { worker: true });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker(this.options.fingerprinterOptions);
    worker.unref();
    worker.on("message", (m: { id: number; ok: boolean; result?: unknown; error?: { code: string; message: string; field?: string } }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else if (m.error && m.error.code !== "INTERNAL") p.reject(new NeardupError(m.error.code as ErrorCode, m.error.message, m.error.field ? { field: m.error.field } : {}));
      else p.reject(new Error(m.error?.message ?? "analysis failed"));
    });
    const fail = (err: unknown): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err instanceof Error ? err : new Error(String(err)));
      this.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the analysis worker exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
