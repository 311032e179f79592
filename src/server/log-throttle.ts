/**
 * At most one log line of a kind per interval, for lines a client can cause at will (a connection cut short, a
 * malformed request): a client opening connections in a loop wrote one line each (audit 23, F8: 2,500 slowloris
 * connections, 2,520 lines). The lines left out are counted: the next line of the kind says how many, and when
 * none comes before the interval ends, `onLeftOut` is called with the count (audit 23: a burst that stopped was
 * otherwise never reported).
 */

/** A throttle whose lines left out and never followed are reported to `logger` as one info line under `label`. */
export function loggedThrottle(logger: { info(details: object, message: string): void } | undefined, label: string, intervalMs = 10_000): LogThrottle {
  return new LogThrottle(intervalMs, Date.now, (kind, left) =>
    logger?.info({ kind, ...left }, `${label}: ${left.suppressed} more line(s) of kind ${kind} left out in the last ${Math.round(left.suppressedMs / 1000)} s`),
  );
}

/** Lines of a kind left out: how many, over how long (ms) since the last line of the kind. */
export interface LeftOut {
  suppressed: number;
  suppressedMs: number;
}

export class LogThrottle {
  private readonly kinds = new Map<string, { at: number; suppressed: number; timer?: NodeJS.Timeout }>();

  /**
   * @param intervalMs Least time between two lines of one kind (default 10 s).
   * @param now The clock, in ms.
   * @param onLeftOut Told of the lines of a kind left out when its interval ends with no line written after them.
   */
  constructor(
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
    private readonly onLeftOut?: (kind: string, left: LeftOut) => void,
  ) {}

  /**
   * Whether a line of `kind` is to be written now: `undefined` when it is left out (and counted), else the
   * fields to add to it, `suppressed` (lines of the kind left out since the last one written) when there were any.
   * `kind` comes from a fixed set chosen by the caller, never from the client, so the map stays small.
   */
  take(kind: string): Partial<LeftOut> | undefined {
    const t = this.now();
    const last = this.kinds.get(kind);
    if (last && t - last.at < this.intervalMs) {
      last.suppressed += 1;
      if (this.onLeftOut && !last.timer) {
        last.timer = setTimeout(() => this.report(kind), last.at + this.intervalMs - t);
        last.timer.unref();
      }
      return undefined;
    }
    if (last?.timer) clearTimeout(last.timer);
    this.kinds.set(kind, { at: t, suppressed: 0 });
    return last && last.suppressed > 0 ? { suppressed: last.suppressed, suppressedMs: t - last.at } : {};
  }

  /** The interval of `kind` ended with lines left out and none written: they are reported, and a new interval starts. */
  private report(kind: string): void {
    const last = this.kinds.get(kind);
    if (!last || last.suppressed === 0) return;
    const t = this.now();
    this.kinds.set(kind, { at: t, suppressed: 0 });
    this.onLeftOut?.(kind, { suppressed: last.suppressed, suppressedMs: t - last.at });
  }
}
