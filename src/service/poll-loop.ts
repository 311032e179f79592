/**
 * A loop of rounds that runs while there is work (`pending`), one run at a
 * time: `kick` starts it when work arrives and is a no-op while it runs. The
 * recent-writes window's watches (visibility.ts, unknown-writes.ts) run on it.
 */
export class PollLoop {
  private running = false;
  private halted = false;

  constructor(
    private readonly pending: () => boolean,
    /** One round: the work, then its own pause. */
    private readonly round: () => Promise<void>,
    /** Called each time the loop stops (no work left). */
    private readonly stopped?: () => void,
  ) {}

  /** True once `halt` was called. */
  get isHalted(): boolean {
    return this.halted;
  }

  /** No round starts from now on (a round running ends as it is); `kick` becomes a no-op. */
  halt(): void {
    this.halted = true;
  }

  kick(): void {
    if (this.running || this.halted) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      while (!this.halted && this.pending()) await this.round();
    } finally {
      this.running = false;
      this.stopped?.();
    }
    // Work that came after the last check and before `running` was cleared.
    if (!this.halted && this.pending()) this.kick();
  }
}
