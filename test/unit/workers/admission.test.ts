// Issue 10: admission to the analysis pool waits in arrival order, bounded in texts and in time.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { Admission } from "../../../src/workers/admission.js";

type State = "admitted" | NeardupError | "waiting";
const states = new WeakMap<Promise<void>, () => State>();
/** The call's state once pending callbacks have run; the first look attaches the handlers. */
const settled = async (p: Promise<void>): Promise<State> => {
  if (!states.has(p)) {
    let state: State = "waiting";
    p.then(
      () => (state = "admitted"),
      (e: NeardupError) => (state = e),
    );
    states.set(p, () => state);
  }
  await vi.advanceTimersByTimeAsync(0);
  return states.get(p)!();
};

describe("Admission", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("admits up to its limit at once, then in arrival order as texts are released", async () => {
    const gate = new Admission({ limit: 10, maxWaiting: 100, maxWaitMs: 1000 });
    expect(await settled(gate.acquire(6))).toBe("admitted");
    const big = gate.acquire(5); // 11 > 10: waits
    const small = gate.acquire(1); // would fit, but must not pass the waiter before it
    expect(await settled(big)).toBe("waiting");
    expect(await settled(small)).toBe("waiting");
    expect(gate.waiting).toBe(6);
    gate.release(1);
    expect(await settled(big)).toBe("admitted"); // 5 + 5
    expect(await settled(small)).toBe("waiting"); // 11 > 10
    gate.release(5);
    expect(await settled(small)).toBe("admitted");
    expect(gate.pending).toBe(6);
    expect(gate.waiting).toBe(0);
  });

  it("gives an idle pool any batch, however large", async () => {
    const gate = new Admission({ limit: 10, maxWaiting: 0, maxWaitMs: 1000 });
    expect(await settled(gate.acquire(500))).toBe("admitted");
    gate.release(500);
    expect(await settled(gate.acquire(11))).toBe("admitted");
  });

  it("refuses at once what would pass the waiting bound, and after maxWaitMs what waited", async () => {
    const gate = new Admission({ limit: 2, maxWaiting: 3, maxWaitMs: 1000 });
    await gate.acquire(2);
    const first = gate.acquire(3);
    const refused = await settled(gate.acquire(1));
    expect(refused).toBeInstanceOf(NeardupError);
    expect((refused as NeardupError).code).toBe("OVERLOADED");
    expect(await settled(first)).toBe("waiting");
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(first)).toBe("waiting");
    await vi.advanceTimersByTimeAsync(1);
    const late = await settled(first);
    expect((late as NeardupError).code).toBe("OVERLOADED");
    expect(gate.waiting).toBe(0);
    expect(gate.pending).toBe(2); // a refused waiter never took a place
    expect(gate.refused).toBe(4); // 1 at once, 3 after waiting
  });

  it("admits the waiters behind one that timed out", async () => {
    const gate = new Admission({ limit: 4, maxWaiting: 100, maxWaitMs: 1000 });
    await gate.acquire(3);
    const big = gate.acquire(4); // waits for the pool to empty
    expect(await settled(big)).toBe("waiting");
    await vi.advanceTimersByTimeAsync(500);
    const small = gate.acquire(1); // fits, but waits behind `big`
    expect(await settled(small)).toBe("waiting");
    await vi.advanceTimersByTimeAsync(500); // `big` times out: `small` goes
    expect(((await settled(big)) as NeardupError).code).toBe("OVERLOADED");
    expect(await settled(small)).toBe("admitted");
    expect(gate.pending).toBe(4);
  });

  it("refuses every waiter when the pool closes", async () => {
    const gate = new Admission({ limit: 1, maxWaiting: 10, maxWaitMs: 1000 });
    await gate.acquire(1);
    const waiting = gate.acquire(1);
    gate.refuseAll(new NeardupError("ENVIRONMENT", "analyzer pool is closed"));
    expect(((await settled(waiting)) as NeardupError).message).toMatch(/closed/);
    expect(gate.waiting).toBe(0);
  });
});
