/**
 * The clock of the service's own intervals: lease terms, the recent-writes window (when a write was
 * acknowledged, when the engine was seen to show it, when a lookup started), the visibility and
 * unknown-write watches, the window mirror's view. Wall time at the process's start plus the monotonic time
 * since: it never jumps with the system clock (an NTP step, an operator's `date`, a resumed VM), so an
 * interval measured on it is the time that passed. With `Date.now`, a clock stepped back between a
 * visibility reading and a later acknowledgement dated the acknowledgement before the reading, and the
 * reading confirmed a write the engine's search did not show yet (a second original; audit 19 found the
 * same in the writer lease). Document times (`@timestamp`, the dedup window) stay on the wall clock.
 */
export function monotonicClock(): number {
  return performance.timeOrigin + performance.now();
}
