// The proxy's in-flight body budget: waiting in place of a 429, without requests waiting on each other for ever.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InflightBudget } from "../../../src/proxy/budget.js";

describe("InflightBudget", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lets a request alone hold more than the budget, and makes another wait until bytes are given back", async () => {
    const budget = new InflightBudget(100, 1000);
    const a = budget.open();
    expect(budget.take(a, 150)).toBe(true); // alone
    const b = budget.open();
    const waiting = budget.take(b, 10);
    expect(waiting).toBeInstanceOf(Promise);
    budget.close(a);
    expect(await waiting).toBe(true);
    expect(budget.total).toBe(10);
  });

  it("lets the oldest request go on when every request holds part of its body: none waits on another for ever", async () => {
    const budget = new InflightBudget(100, 1000);
    const a = budget.open();
    const b = budget.open();
    expect(budget.take(a, 60)).toBe(true);
    expect(budget.take(b, 40)).toBe(true);
    const bMore = budget.take(b, 30); // over: b waits
    expect(bMore).toBeInstanceOf(Promise);
    expect(budget.take(a, 30)).toBeInstanceOf(Promise); // a waits behind b's waiter in the queue...
    await vi.advanceTimersByTimeAsync(0);
    expect(budget.total).toBe(130); // ...but the oldest is let in at once
    budget.close(a);
    expect(await bMore).toBe(true);
    expect(budget.total).toBe(70);
  });

  it("refuses a request that waited maxWaitMs, and one whose request closed while it waited", async () => {
    const budget = new InflightBudget(100, 1000);
    const a = budget.open();
    budget.take(a, 90);
    const b = budget.open();
    const late = budget.take(b, 20) as Promise<boolean>;
    await vi.advanceTimersByTimeAsync(1000);
    expect(await late).toBe(false);
    expect(budget.total).toBe(90);
    const c = budget.open();
    const gone = budget.take(c, 20) as Promise<boolean>;
    budget.close(c);
    expect(await gone).toBe(false);
    expect(budget.total).toBe(90);
    expect(budget.tryTake(b, 20)).toBe(false); // tryTake never waits
    expect(budget.tryTake(b, 10)).toBe(true);
  });
});
