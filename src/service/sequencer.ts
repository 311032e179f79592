/**
 * Arrival order for decisions. A request takes a ticket the moment it
 * arrives, before any analysis or engine lookup; its decisions run only once
 * every earlier ticket has decided (or given up). Lookups still run in
 * parallel and may finish in any order: a slow lookup delays the decisions
 * behind it, but can never let a later near-duplicate become the original.
 */
export interface Ticket {
  /** 1, 2, 3 ... in arrival order. */
  readonly number: number;
  /** Resolves when every earlier ticket is done. */
  turn(): Promise<void>;
  /** This ticket has decided (or failed): later tickets may go. Idempotent. */
  done(): void;
}

export class Sequencer {
  private tail: Promise<void> = Promise.resolve();
  private issued = 0;
  private finished = 0;

  /** Tickets taken and not yet done. */
  get waiting(): number {
    return this.issued - this.finished;
  }

  take(): Ticket {
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tail = mine;
    this.issued += 1;
    let released = false;
    return {
      number: this.issued,
      turn: () => previous,
      done: () => {
        if (released) return;
        released = true;
        this.finished += 1;
        // Never before the earlier tickets: one that gives up early (a failed lookup) must not let a later
        // ticket decide ahead of an earlier one still looking up.
        void previous.then(release);
      },
    };
  }
}
