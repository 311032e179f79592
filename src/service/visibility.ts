/**
 * When the engine's search is sure to show what it acknowledged: the
 * recent-writes window keeps each acknowledged write (and delete) until a
 * refresh that started after the acknowledgement has ended, and this watch is
 * what finds that out. Assuming "acknowledgement + refresh interval" is not
 * enough: under load a scheduled refresh ends seconds late (an audit measured
 * 2.2 s with a 1 s interval), and a lookup that skipped the entry then missed
 * a document the engine did not show yet: two originals in one group.
 *
 * While some acknowledgement is unconfirmed, the watch reads each shard
 * copy's count of ended searcher-opening refreshes (`Engine.refreshCounts`)
 * every `pollMs`. When every copy's count grew by two or more between a read
 * sent at `s` and a read answered at `r`, a refresh that started after `s`
 * had ended on every copy by `r` (refreshes of a copy run one at a time, so
 * the second of two ended after `s`): every acknowledgement before `s` is
 * visible from `r` on. The engine refreshes on its own schedule; the watch
 * adds no refresh while writes keep coming. The counts grow only with
 * refreshes that had something to show, so the last writes of a burst are
 * followed by one such refresh, not two: when an acknowledgement stays
 * unconfirmed for `fallbackMs` (that, a shard gone search-idle, which
 * refreshes only when searched, or an engine far behind), the watch refreshes
 * the index itself, which costs next to nothing when the engine's schedule has
 * shown everything already: a refresh sent at `s` that answers at `r`
 * confirms every acknowledgement before `s`.
 * An index that no longer exists shows nothing: its acknowledgements count
 * as visible.
 */
import { hasErrorCode } from "../core/errors.js";
import type { Engine } from "../engine/types.js";
import { PollLoop } from "./poll-loop.js";
import { monotonicClock } from "./clock.js";

/** What the watch confirms (the recent-writes window, recent.ts). */
export interface VisibilityTarget {
  /** The oldest acknowledgement not yet confirmed; undefined when none is left. */
  unconfirmedSince(): number | undefined;
  /** Every acknowledgement before `ackedBefore` is visible to searches from `at`. */
  confirmVisible(ackedBefore: number, at: number): void;
}

export interface VisibilityOptions {
  /** Between two reads of the refresh counts, in ms. Default 200. */
  pollMs?: number;
  /** The index's refresh interval in ms, read at each step (it is learned after start). */
  refreshMs: () => number;
  /** How long an acknowledgement may stay unconfirmed before the watch refreshes the index itself. Default: 3 refresh intervals, at least the interval + 2 s. */
  fallbackMs?: number;
  clock?: () => number;
  /**
   * Steps began to fail (the engine unreachable, or refused: reading refresh counts needs the `monitor`
   * index privilege, refreshing `maintenance`); told once until a step succeeds again. The watch goes on
   * trying, and meanwhile takes an acknowledgement older than two `fallbackMs` as visible (the old rule,
   * acknowledgement + a margin), so that the window cannot fill up for ever.
   */
  onError?: (err: unknown) => void;
  /** The watch refreshed the index itself (its schedule did not confirm in time). */
  onFallback?: () => void;
}

interface Reading {
  sentAt: number;
  counts: Map<string, number>;
}

/** Most readings kept: at 200 ms a poll, about 13 s of them. */
const MAX_READINGS = 64;

export class VisibilityWatch {
  private readings: Reading[] = [];
  private failing = false;
  private readonly pollMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly engine: Engine,
    private readonly index: string,
    private readonly target: () => VisibilityTarget,
    private readonly options: VisibilityOptions,
  ) {
    this.pollMs = options.pollMs ?? 200;
    this.clock = options.clock ?? monotonicClock;
  }

  /** Something was acknowledged: watch until it is confirmed (a no-op while the watch runs). */
  kick(): void {
    this.loop.kick();
  }

  /** Stops watching (the service is closing, its engine client next): no reading is sent or reported after it. */
  stop(): void {
    this.loop.halt();
  }

  private readonly loop = new PollLoop(
    () => this.target().unconfirmedSince() !== undefined,
    () => this.round(),
    () => (this.readings = []),
  );

  private async round(): Promise<void> {
    let pause = this.pollMs;
    try {
      await this.step();
      this.failing = false;
    } catch (err) {
      if (this.loop.isHalted) return; // the engine client closed under a reading of a watch that was stopped
      if (!this.failing) this.options.onError?.(err);
      this.failing = true;
      pause = this.pollMs * 5;
      const now = this.clock();
      const fallbackMs = this.fallbackMs();
      if (now - (this.target().unconfirmedSince() ?? now) >= 2 * fallbackMs) this.target().confirmVisible(now - 2 * fallbackMs, now);
    }
    if (this.target().unconfirmedSince() === undefined) return;
    await new Promise<void>((resolve) => setTimeout(resolve, pause).unref());
  }

  /** One reading of the refresh counts (or, past `fallbackMs`, one refresh), confirming what it can. */
  async step(): Promise<void> {
    const oldest = this.target().unconfirmedSince();
    if (oldest === undefined) return;
    const sentAt = this.clock();
    if (sentAt - oldest >= this.fallbackMs()) {
      this.options.onFallback?.();
      await this.gone(() => this.engine.refresh(this.index));
      this.target().confirmVisible(sentAt, this.clock());
      this.readings = [];
      return;
    }
    const counts = await this.gone(() => this.engine.refreshCounts(this.index));
    const answeredAt = this.clock();
    if (counts === undefined) {
      this.target().confirmVisible(sentAt, answeredAt); // the index is gone: nothing of it shows
      this.readings = [];
      return;
    }
    // The latest earlier reading that every copy has refreshed twice since.
    let k = this.readings.length - 1;
    while (k >= 0 && !refreshedTwiceSince(this.readings[k]!.counts, counts)) k--;
    if (k >= 0) {
      this.target().confirmVisible(this.readings[k]!.sentAt, answeredAt);
      this.readings = this.readings.slice(k + 1);
    }
    this.readings.push({ sentAt, counts });
    if (this.readings.length > MAX_READINGS) this.readings.shift();
  }

  private fallbackMs(): number {
    const refreshMs = Math.max(0, this.options.refreshMs());
    return this.options.fallbackMs ?? Math.max(3 * refreshMs, refreshMs + 2000);
  }

  /** The call's value, or undefined when the index does not exist. */
  private async gone<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (err) {
      if (hasErrorCode(err, "NOT_FOUND")) return undefined;
      throw err;
    }
  }
}

/** True when `now` has the same shard copies as `before`, each with at least two more ended refreshes. */
export function refreshedTwiceSince(before: ReadonlyMap<string, number>, now: ReadonlyMap<string, number>): boolean {
  if (before.size === 0 || before.size !== now.size) return false;
  for (const [copy, count] of before) {
    const later = now.get(copy);
    if (later === undefined || later < count + 2) return false;
  }
  return true;
}
