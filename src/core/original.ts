/**
 * Which earlier document a near-duplicate points at (docs/dedup.md, "The
 * original"): among the earlier documents the verdict calls duplicates, the
 * earliest by time, ties by id (string order); if that one is itself a
 * duplicate, its own original (`duplicate_of`, which always names a root, so
 * one step resolves it). The service and `neardup dedup` both use this.
 */

/** What the rule needs to know about an earlier document. */
export interface Dated {
  id: string;
  /** Milliseconds since the epoch (the CLI uses arrival order when the input has no times). */
  time: number;
}

/** Oldest first, ties by id: the order in which the original is chosen. */
export function byTimeThenId(a: Dated, b: Dated): number {
  return a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The earliest of `duplicates` (earlier documents the verdict called
 * duplicates) and the id of the root original it resolves to; undefined for
 * none. `duplicateOf(d)` is d's own original, or null/undefined if d is one.
 */
export function chooseRoot<T extends Dated>(duplicates: readonly T[], duplicateOf: (d: T) => string | null | undefined): { earliest: T; originalId: string } | undefined {
  let earliest: T | undefined;
  for (const d of duplicates) if (earliest === undefined || byTimeThenId(d, earliest) < 0) earliest = d;
  if (earliest === undefined) return undefined;
  return { earliest, originalId: duplicateOf(earliest) || earliest.id }; // "" is no id
}
