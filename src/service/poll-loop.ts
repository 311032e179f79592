/**
 * A loop of rounds that runs while there is work (`pending`), one run at a
 * time: `kick` starts it when work arrives and is a no-op while it runs. The
 * recent-writes window's watches (visibility.ts, unknown-writes.ts) run on it.
 */
export class PollLoop {
  private running = false;

  constructor(
    private readonly pending: () => boolean,
    /** One round: the work, then its own pause. */
    private readonly round: () => Promise<void>,
    /** Called each time the loop stops (no work left). */
    private readonly stopped?: () => void,
  ) {}

  kick(): void {
    if (this.running) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      while (this.pending()) await this.round();
    } finally {
      this.running = false;
      this.stopped?.();
    }
    // Work that came after the last check and before `running` was cleared.
    if (this.pending()) this.kick();
  }
}
