import { describe, expect, it } from "vitest";
import { Sequencer } from "../../../src/service/sequencer.js";

/** Whether `p` has settled after the microtasks and one macrotask queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setTimeout(r, 0));
  return done;
}

describe("Sequencer", () => {
  it("gives each ticket its turn once every earlier ticket is done, in arrival order", async () => {
    const s = new Sequencer();
    const [a, b, c] = [s.take(), s.take(), s.take()];
    expect([a.number, b.number, c.number]).toEqual([1, 2, 3]);
    expect(await settled(a.turn())).toBe(true);
    expect(await settled(b.turn())).toBe(false);
    a.done();
    expect(await settled(b.turn())).toBe(true);
    expect(await settled(c.turn())).toBe(false);
    b.done();
    b.done(); // idempotent
    expect(await settled(c.turn())).toBe(true);
    c.done();
    expect(s.waiting).toBe(0);
  });

  it("a ticket done before its turn (a request that failed early) does not let a later one pass an earlier one", async () => {
    const s = new Sequencer();
    const [a, b, c] = [s.take(), s.take(), s.take()];
    b.done(); // b gave up before a decided
    expect(await settled(c.turn())).toBe(false); // c arrived after a: it must still wait for a
    a.done();
    expect(await settled(c.turn())).toBe(true);
  });
});
