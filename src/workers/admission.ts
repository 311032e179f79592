/**
 * Admission to the analysis pool (issue 10's backpressure): at most `limit`
 * texts are in work or queued on the threads. A caller beyond it waits, in
 * arrival order, instead of being refused at once, so that a few parallel
 * bulk requests (shippers send 2-8 at a time) are slowed down rather than
 * answered 429/503 item by item. The wait is bounded twice: in texts
 * (`maxWaiting`; a caller that would pass it is refused at once) and in time
 * (`maxWaitMs`; a caller still waiting then is refused). Refusals are
 * NeardupError OVERLOADED: HTTP 503 (the API) or a per-item 429 (the proxy),
 * with Retry-After. Nothing here is unbounded.
 */
import { NeardupError } from "../core/errors.js";

export interface AdmissionOptions {
  /** Most texts in work or queued on the threads at once. */
  limit: number;
  /** Most texts waiting for admission at once; a caller that would pass it is refused at once. */
  maxWaiting: number;
  /** Longest a caller waits for admission before it is refused. */
  maxWaitMs: number;
}

interface Waiter {
  n: number;
  admit: () => void;
  refuse: (err: NeardupError) => void;
  timer: NodeJS.Timeout;
}

export class Admission {
  private admitted = 0;
  private waitingTexts = 0;
  private refusedTexts = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly options: AdmissionOptions) {}

  /** Texts in work or queued on the threads. */
  get pending(): number {
    return this.admitted;
  }

  /** Texts waiting for admission. */
  get waiting(): number {
    return this.waitingTexts;
  }

  /** Texts refused since the start (at once, or after waiting `maxWaitMs`); not those refused by `refuseAll`. */
  get refused(): number {
    return this.refusedTexts;
  }

  /**
   * Resolves once `n` texts may go to the threads; `release(n)` must follow when they are done. An idle pool
   * takes any `n`, so one large request is never refused outright.
   *
   * @throws NeardupError OVERLOADED (at once, or after `maxWaitMs`) when the pool cannot take them.
   */
  acquire(n: number): Promise<void> {
    if (this.queue.length === 0 && this.fits(n)) {
      this.admitted += n;
      return Promise.resolve();
    }
    const { limit, maxWaiting, maxWaitMs } = this.options;
    if (this.waitingTexts + n > maxWaiting) {
      this.refusedTexts += n;
      return Promise.reject(
        new NeardupError("OVERLOADED", `analysis pool is saturated: ${this.admitted} texts in work and ${this.waitingTexts} waiting, limits ${limit} and ${maxWaiting}; retry later`, {
          details: { pending: this.admitted, waiting: this.waitingTexts, limit, maxWaiting },
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        n,
        admit: resolve,
        refuse: reject,
        timer: setTimeout(() => {
          this.remove(waiter);
          this.refusedTexts += n;
          reject(new NeardupError("OVERLOADED", `analysis pool is saturated: waited ${maxWaitMs} ms for ${n} texts; retry later`, { details: { pending: this.admitted, waitedMs: maxWaitMs } }));
          this.drain();
        }, maxWaitMs),
      };
      waiter.timer.unref();
      this.queue.push(waiter);
      this.waitingTexts += n;
    });
  }

  /** `n` admitted texts are done: admits the waiters that now fit, in arrival order. */
  release(n: number): void {
    this.admitted -= n;
    this.drain();
  }

  /** Refuses every waiter (the pool is closing). */
  refuseAll(err: NeardupError): void {
    for (const waiter of this.queue.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.refuse(err);
    }
    this.waitingTexts = 0;
  }

  private fits(n: number): boolean {
    return this.admitted === 0 || this.admitted + n <= this.options.limit;
  }

  private drain(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.n)) {
      const waiter = this.queue.shift()!;
      clearTimeout(waiter.timer);
      this.waitingTexts -= waiter.n;
      this.admitted += waiter.n;
      waiter.admit();
    }
  }

  private remove(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at < 0) return;
    this.queue.splice(at, 1);
    this.waitingTexts -= waiter.n;
  }
}
