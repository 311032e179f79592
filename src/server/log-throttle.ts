/**
 * At most one log line of a kind per interval, for lines a client can cause at will (a connection cut short, a
 * malformed request): a client opening connections in a loop wrote one line each (audit 23, F8: 2,500 slowloris
 * connections, 2,520 lines). The lines left out are counted, and the next line of the kind says how many.
 */
export class LogThrottle {
  private readonly kinds = new Map<string, { at: number; suppressed: number }>();

  /**
   * @param intervalMs Least time between two lines of one kind (default 10 s).
   * @param now The clock, in ms.
   */
  constructor(
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether a line of `kind` is to be written now: `undefined` when it is left out (and counted), else the
   * fields to add to it, `suppressed` (lines of the kind left out since the last one written) when there were any.
   * `kind` comes from a fixed set chosen by the caller, never from the client, so the map stays small.
   */
  take(kind: string): { suppressed?: number; suppressedMs?: number } | undefined {
    const t = this.now();
    const last = this.kinds.get(kind);
    if (last && t - last.at < this.intervalMs) {
      last.suppressed += 1;
      return undefined;
    }
    this.kinds.set(kind, { at: t, suppressed: 0 });
    return last && last.suppressed > 0 ? { suppressed: last.suppressed, suppressedMs: t - last.at } : {};
  }
}
