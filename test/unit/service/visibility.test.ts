/**
 * The visibility watch (visibility.ts): an acknowledged write leaves the
 * recent-writes window's "not yet searchable" state only once a refresh that
 * started after the acknowledgement is known to have ended on every shard copy.
 */
import { describe, expect, it, vi } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import type { Engine } from "../../../src/engine/types.js";
import { fromHex } from "../../../src/core/fingerprint.js";
import { RecentWrites } from "../../../src/service/recent.js";
import { VisibilityWatch, refreshedTwiceSince, type VisibilityTarget } from "../../../src/service/visibility.js";

/** A target holding acknowledgement times; confirmed ones get the time they became visible. */
function target(...acks: number[]) {
  const visible = new Map<number, number>();
  const t: VisibilityTarget & { visible: Map<number, number> } = {
    visible,
    unconfirmedSince: () => acks.find((a) => !visible.has(a)),
    confirmVisible: (before, at) => {
      for (const a of acks) if (a <= before && !visible.has(a)) visible.set(a, at);
    },
  };
  return t;
}

/** An engine whose refresh counts are set by the test; `refresh()` is counted. */
function engine(counts: () => Map<string, number> | Error, refreshError?: Error) {
  const calls = { refresh: 0, counts: 0 };
  const e = {
    refreshCounts: async () => {
      calls.counts++;
      const c = counts();
      if (c instanceof Error) throw c;
      return c;
    },
    refresh: async () => {
      calls.refresh++;
      if (refreshError) throw refreshError;
    },
  } as unknown as Engine;
  return { engine: e, calls };
}

const copies = (p: number, r: number) =>
  new Map([
    ["i/0/n1/p", p],
    ["i/0/n2/r", r],
  ]);

describe("VisibilityWatch", () => {
  it("confirms what was acknowledged before a reading once every shard copy has ended two refreshes since it", async () => {
    let now = 1000;
    let current = copies(5, 7);
    const { engine: e, calls } = engine(() => current);
    const t = target(900, 1000);
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, clock: () => now });
    await watch.step(); // reading sent at 1,000: the baseline
    now = 1200;
    current = copies(7, 8); // the replica has ended only one refresh since: a search it serves may not show the writes
    await watch.step();
    expect(t.visible.size).toBe(0);
    now = 1400;
    current = copies(7, 9);
    await watch.step();
    expect([...t.visible]).toEqual([
      [900, 1400],
      [1000, 1400],
    ]);
    expect(calls.refresh).toBe(0); // the engine's own schedule did it
  });

  it("does not confirm an acknowledgement later than the reading the refreshes are counted from", async () => {
    let now = 1000;
    let current = copies(1, 1);
    const { engine: e } = engine(() => current);
    const t = target(1100);
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, clock: () => now });
    await watch.step(); // sent at 1,000, before the acknowledgement at 1,100
    now = 1300;
    current = copies(3, 3);
    await watch.step();
    expect(t.visible.size).toBe(0); // the refreshes may have started before 1,100
    now = 1500;
    current = copies(5, 5);
    await watch.step(); // two more since the reading sent at 1,300
    expect(t.visible.get(1100)).toBe(1500);
  });

  it("a change in the shard copies (a relocation, a new index behind an alias) confirms nothing until readings agree again", () => {
    expect(refreshedTwiceSince(copies(1, 1), new Map([["i/0/n1/p", 9]]))).toBe(false);
    expect(refreshedTwiceSince(copies(1, 1), new Map([["i/0/n1/p", 9], ["i/0/n3/r", 9]]))).toBe(false);
    expect(refreshedTwiceSince(new Map(), new Map())).toBe(false);
    expect(refreshedTwiceSince(copies(1, 1), copies(3, 3))).toBe(true);
  });

  it("refreshes the index itself when the engine's schedule has not confirmed in time (the end of a burst: counts grow only with refreshes that show something; search-idle shards; an overloaded engine)", async () => {
    let now = 1000;
    const { engine: e, calls } = engine(() => copies(1, 1)); // no refresh ever ends
    const t = target(1000);
    let fallbacks = 0;
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, clock: () => now, onFallback: () => fallbacks++ });
    await watch.step();
    now = 3999;
    await watch.step();
    expect(calls.refresh).toBe(0);
    now = 4000; // three intervals after the acknowledgement
    await watch.step();
    expect(calls.refresh).toBe(1);
    expect(fallbacks).toBe(1);
    expect(t.visible.get(1000)).toBe(4000);
  });

  it("an index that no longer exists shows nothing: what it acknowledged counts as visible", async () => {
    const { engine: e } = engine(() => new NeardupError("NOT_FOUND", "no such index"));
    const t = target(1000);
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, clock: () => 1200 });
    await watch.step();
    expect(t.visible.get(1000)).toBe(1200);
  });

  it("runs on its own after a kick until everything is confirmed, and tells a failure once", async () => {
    let count = 0;
    let fail = true;
    const { engine: e } = engine(() => (fail ? new NeardupError("ENGINE_UNAVAILABLE", "down") : copies(count, count)));
    const t = target(Date.now());
    const errors: unknown[] = [];
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, pollMs: 5, onError: (err) => errors.push(err) });
    watch.kick();
    watch.kick(); // a no-op while it runs
    await new Promise((r) => setTimeout(r, 80));
    expect(errors).toHaveLength(1); // several failed steps, told once
    expect(t.visible.size).toBe(0);
    fail = false;
    const timer = setInterval(() => (count += 1), 10); // the engine's schedule
    try {
      for (let k = 0; k < 100 && t.visible.size === 0; k++) await new Promise((r) => setTimeout(r, 10));
    } finally {
      clearInterval(timer);
    }
    expect(t.visible.size).toBe(1);
  });

  it("while it cannot read the engine, takes an acknowledgement older than two fallback periods as visible", async () => {
    let now = 1000;
    const refused = new NeardupError("ENGINE_ERROR", "security_exception: no monitor or maintenance privilege");
    const { engine: e } = engine(() => refused, refused);
    const t = target(1000);
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, fallbackMs: 3000, pollMs: 1, clock: () => now });
    watch.kick();
    await new Promise((r) => setTimeout(r, 30));
    expect(t.visible.size).toBe(0);
    now = 7000; // two fallback periods after the acknowledgement
    for (let k = 0; k < 100 && t.visible.size === 0; k++) await new Promise((r) => setTimeout(r, 5));
    expect(t.visible.get(1000)).toBe(7000);
  });
  it("once stopped, asks the engine no more and does not report the failure of a reading already sent (a closed engine at shutdown)", async () => {
    let release: () => void = () => undefined;
    const sent = { count: 0 };
    const e = {
      refreshCounts: () => {
        sent.count++;
        return new Promise((_, reject) => (release = () => reject(new NeardupError("ENGINE_UNAVAILABLE", "the engine client is closed"))));
      },
      refresh: async () => undefined,
    } as unknown as Engine;
    const errors: unknown[] = [];
    const t = target(1000);
    const watch = new VisibilityWatch(e, "i", () => t, { refreshMs: () => 1000, pollMs: 1, clock: () => 1000, onError: (err) => errors.push(err) });
    watch.kick();
    await new Promise((r) => setTimeout(r, 5));
    expect(sent.count).toBe(1);
    watch.stop();
    release();
    await new Promise((r) => setTimeout(r, 30));
    watch.kick();
    await new Promise((r) => setTimeout(r, 30));
    expect(errors).toEqual([]);
    expect(sent.count).toBe(1);
  });
  it("a system clock stepped back does not date a later acknowledgement before an earlier reading: the reading never confirms it (the window's clock is monotonic)", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    try {
      let current = copies(5, 5);
      const { engine: e } = engine(() => current);
      const recent = new RecentWrites({ holdMs: 30_000, refreshMs: 1000 });
      const watch = new VisibilityWatch(e, "i", () => recent, { refreshMs: () => 1000 });
      const first = recent.add({ id: "first", simhash: fromHex("0000000000000000"), lsh: [], time: 0, status: "original", duplicateOf: undefined });
      recent.settle(first, true);
      await watch.step(); // a reading sent now: only what was acknowledged before it can be confirmed by it
      vi.advanceTimersByTime(100);
      vi.setSystemTime(Date.now() - 3_600_000); // the wall clock steps back an hour
      const later = recent.add({ id: "later", simhash: fromHex("ffffffffffffffff"), lsh: [], time: 0, status: "original", duplicateOf: undefined });
      recent.settle(later, true); // acknowledged after the reading was sent
      vi.advanceTimersByTime(100);
      current = copies(7, 7); // two refreshes ended on each copy since the reading
      await watch.step();
      expect(first.visibleAt).not.toBe(Infinity);
      expect(later.visibleAt).toBe(Infinity); // a refresh that started before its acknowledgement may not show it
      expect(recent.unconfirmedSince()).toBe(later.ackedAt);
    } finally {
      vi.useRealTimers();
    }
  });
});
