/**
 * The proxy's budget of `_bulk` body bytes in flight (NEARDUP_MAX_INFLIGHT_BODY), counted as they arrive.
 * A request whose next bytes would pass it waits, its socket paused (TCP pushes back on the client), until
 * other requests give bytes back, instead of getting a whole-request 429 at once: shippers' parallel
 * helpers (Python `parallel_bulk`) do not retry a 429 and dropped those documents (shipper audit), while
 * the engine alone read them. Limits:
 * - the oldest request holding bytes always goes on, so paused requests never wait on each other for ever;
 * - a request that waited `maxWaitMs` is refused (the caller answers 429 with Retry-After);
 * - a request alone may hold more than the budget (one body up to the engines' 100 MB is always read).
 */
export class InflightBudget {
  private held = 0;
  /** Bytes held by each open request, in arrival order. */
  private readonly holders = new Map<number, number>();
  private readonly waiters: { id: number; bytes: number; settle: (admitted: boolean) => void; timer: NodeJS.Timeout }[] = [];
  private nextId = 0;

  constructor(
    readonly max: number,
    readonly maxWaitMs: number,
  ) {}

  /** Bytes held by every open request. */
  get total(): number {
    return this.held;
  }

  /** Bytes held by one open request. */
  heldBy(id: number): number {
    return this.holders.get(id) ?? 0;
  }

  /** A new request; {@link close} must follow. */
  open(): number {
    const id = this.nextId++;
    this.holders.set(id, 0);
    return id;
  }

  /** The request is done: its bytes go back, and waiters that now fit go on. */
  close(id: number): void {
    this.held -= this.heldBy(id);
    this.holders.delete(id);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (w.id !== id) continue;
      clearTimeout(w.timer);
      this.waiters.splice(i, 1);
      w.settle(false);
    }
    this.drain();
  }

  /** Takes `bytes` now if they fit (see the file comment); false otherwise, and nothing is taken. */
  tryTake(id: number, bytes: number): boolean {
    if (!this.fits(id, bytes)) return false;
    this.add(id, bytes);
    return true;
  }

  /** Takes `bytes`: at once (`true`), or a promise of whether they were taken before `maxWaitMs`. */
  take(id: number, bytes: number): true | Promise<boolean> {
    if (this.waiters.length === 0 && this.tryTake(id, bytes)) return true;
    return new Promise<boolean>((settle) => {
      const waiter = {
        id,
        bytes,
        settle,
        timer: setTimeout(() => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          settle(false);
        }, this.maxWaitMs),
      };
      this.waiters.push(waiter);
      this.drain(); // the oldest request, or one that fits, need not wait behind others
    });
  }

  private fits(id: number, bytes: number): boolean {
    if (this.held - this.heldBy(id) === 0 || this.held + bytes <= this.max) return true;
    return this.holders.keys().next().value === id;
  }

  private add(id: number, bytes: number): void {
    this.held += bytes;
    this.holders.set(id, this.heldBy(id) + bytes);
  }

  private drain(): void {
    for (let i = 0; i < this.waiters.length; ) {
      const w = this.waiters[i]!;
      if (!this.fits(w.id, w.bytes)) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      clearTimeout(w.timer);
      this.add(w.id, w.bytes);
      w.settle(true);
    }
  }
}
