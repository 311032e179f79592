/**
 * Cooperative time slices for CPU work that must stay on the event loop (the
 * re-rank: it reads the recent-writes window and decides in ticket order).
 * The work asks `due` before each step and, once a slice has run for
 * `sliceMs`, gives the event loop one turn (`setImmediate`: pending I/O and
 * timers run, so /livez and every other request keep answering) before it
 * goes on. One slicer serves a whole request, so a bulk of many documents,
 * each with a short re-rank, still yields.
 *
 * The longest stretch without a turn is therefore `sliceMs` plus one step;
 * the costliest step is one comparison within the edit budget (core
 * `EDIT_MAX_CELLS`, 5-6 ms on a busy 2-core machine).
 */

/** Default slice: 3 ms. */
export const DEFAULT_SLICE_MS = 3;

export class Slicer {
  /** Turns given to the event loop so far (for tests and metrics). */
  yields = 0;
  private since = performance.now();

  constructor(private readonly sliceMs = DEFAULT_SLICE_MS) {}

  /** True once the current slice has run its time: call `yield()` before the next step. */
  get due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  /** Gives the event loop one turn and starts a new slice. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yields++;
    this.since = performance.now();
  }
}
