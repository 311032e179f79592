import { describe, expect, it, vi } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { LEASE_INDEX, PREDECESSOR_WRITES_MAX_MS, WriterLease, type Forwarder, type LeaseDoc } from "../../../src/service/writer-lease.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

function setup() {
  const engine = new MemoryEngine();
  let now = 1_000_000;
  const clock = () => now;
  const forwarded: string[] = [];
  const forwarder: Forwarder = async (url, docs) => {
    forwarded.push(url);
    return docs.map((d) => ({ id: d.id, status: "original" as const, action: "indexed" as const, duplicate_of: null, distance: null, similarity: null, reason: null }));
  };
  const events: string[] = [];
  const make = (name: string, url = `http://${name}`) => new WriterLease(engine, { index: "docs", holder: name, url, ttlMs: 10_000, marginMs: 1000, refreshMs: 1000, clock }, forwarder, (event) => events.push(`${name}: ${event}`));
  return { engine, make, forwarded, events, advance: (ms: number) => (now += ms) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const doc = { id: "x", idGiven: true, text: "t", fields: undefined, time: 0 };

describe("WriterLease", () => {
  it("the proxy's leases (key proxy:<index>) are their own documents: writerUrl routes to that lease's holder; a lost create race reads the winner at once", async () => {
    const { engine, make } = setup();
    const api = make("api");
    await api.tick(); // the HTTP API's lease on `docs`
    const proxyLease = (name: string) => new WriterLease(engine, { index: "docs", key: "proxy:docs", holder: name, url: `http://${name}-proxy`, refreshMs: 1000 }, () => Promise.reject(new Error("unused")));
    const p1 = proxyLease("p1");
    const p2 = proxyLease("p2");
    await Promise.all([p1.start(), p2.start()]);
    try {
      const holders = [p1, p2].filter((l) => l.role === "holder");
      expect(holders).toHaveLength(1);
      const follower = holders[0] === p1 ? p2 : p1;
      expect(follower.role).toBe("follower"); // not "unknown" until the next round
      expect(holders[0]!.writerUrl()).toBeUndefined();
      expect(follower.writerUrl()).toBe(holders[0] === p1 ? "http://p1-proxy" : "http://p2-proxy");
      expect((await engine.getVersioned<LeaseDoc>(LEASE_INDEX, "docs"))?.source.holder).toBe("api");
    } finally {
      await Promise.all([p1.stop(), p2.stop(), api.stop()]);
    }
  });

  it("writerUrl throws a retryable error while no sidecar holds the lease", () => {
    const { make } = setup();
    expect(() => make("a").writerUrl()).toThrow(expect.objectContaining({ code: "RETRY" }));
  });

  it("the first sidecar takes the lease and decides at once; the second follows and forwards to it", async () => {
    const { make, forwarded } = setup();
    const a = make("a");
    const b = make("b");
    await a.tick();
    await b.tick();
    expect(a.role).toBe("holder");
    expect(() => a.assertDeciding()).not.toThrow();
    expect(a.forward([doc], "mark")).toBeUndefined();
    expect(b.role).toBe("follower");
    await b.forward([doc], "mark");
    expect(forwarded).toEqual(["http://a"]);
    expect(() => b.assertDeciding()).toThrow(NeardupError);
  });

  it("a holder that cannot renew stops deciding when its term runs out on its own clock", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    await a.tick();
    engine.putDocument = () => Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "down"));
    advance(5000);
    await a.tick(); // renewal fails: still within the term
    expect(() => a.assertDeciding()).not.toThrow();
    advance(4001); // 9,001 ms after the last renewal was sent: past ttl - margin
    expect(() => a.assertDeciding()).toThrow(/lost the writer lease/);
    // A write routed meanwhile is told why (the engine is late), not that a handover is under way; reported once.
    expect(() => a.writerUrl()).toThrow(/has not answered its renewal in time \(1 ms past its term/);
    expect(() => a.writerUrl()).toThrow(/has not answered its renewal/);
    expect(a.events.late).toBe(1);
  });

  it("audit 23 F7: the late-renewal message gives whole milliseconds, not the monotonic clock's fractions", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    await a.tick();
    engine.putDocument = () => Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "down"));
    advance(24_749.943115234375 + 9000);
    expect(() => a.writerUrl()).toThrow(/\(24750 ms past its term;/);
  });

  it("audit 23 F1: status() says whether writes can be taken: waiting out a crashed predecessor's lease (same URL), with the seconds left; then taking over, held; a follower forwards", async () => {
    const { make, advance } = setup();
    // The predecessor, at the same URL as its restarted successor, held the lease and died (no renewal, no release).
    const dead = make("same");
    await dead.tick();
    expect(dead.status()).toEqual({ state: "held", holderUrl: "http://same" });
    const restarted = make("same-2", "http://same");
    expect(restarted.status()).toEqual({ state: "unknown" });
    await restarted.tick();
    // ttl + margin unrenewed, then up to one round (ttl / 3) to see it: 11 + 3.333 s, rounded up.
    expect(restarted.status()).toEqual({ state: "waiting", holderUrl: "http://same", secondsLeft: 15 });
    expect(restarted.hasTakenWrites).toBe(false);
    advance(6000);
    await restarted.tick();
    expect(restarted.status()).toMatchObject({ state: "waiting", secondsLeft: 9 });
    advance(5000);
    await restarted.tick(); // 11 s unrenewed: taken over; it decides once a refresh has shown the predecessor's writes
    expect(restarted.status()).toMatchObject({ state: "taking_over", holderUrl: "http://same" });
    expect(restarted.hasTakenWrites).toBe(false);
    await sleep(20);
    advance(2000);
    expect(restarted.status()).toEqual({ state: "held", holderUrl: "http://same" });
    expect(restarted.hasTakenWrites).toBe(true);
    const follower = make("f", "http://f");
    await follower.tick();
    // Not yet seen renewed since it started: the holder may have just died (writes forwarded to it would fail).
    expect(follower.status()).toMatchObject({ state: "waiting", holderUrl: "http://same" });
    expect(follower.hasTakenWrites).toBe(false);
    advance(3400);
    await restarted.tick(); // renewed
    await follower.tick();
    expect(follower.status()).toEqual({ state: "forwarding", holderUrl: "http://same" });
    expect(follower.hasTakenWrites).toBe(true);
    // Its holder stops renewing: the follower waits the lease out (and stays "has taken writes").
    advance(11_000);
    await follower.tick();
    expect(follower.status().state).not.toBe("forwarding");
    expect(follower.hasTakenWrites).toBe(true);
    await Promise.all([restarted.stop(), follower.stop()]);
  });

  it("terms are measured on a monotonic clock: a system clock stepped back does not keep a holder deciding past its term (audit 19)", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    try {
      const lease = new WriterLease(new MemoryEngine(), { index: "docs", holder: "a", url: "http://a", ttlMs: 10_000, marginMs: 1000, refreshMs: 1000 }, () => Promise.reject(new Error("unused")));
      await lease.tick();
      expect(() => lease.assertDeciding()).not.toThrow();
      vi.setSystemTime(Date.now() - 3_600_000); // the wall clock steps back an hour
      vi.advanceTimersByTime(9001); // past ttl - margin of real time
      expect(() => lease.assertDeciding()).toThrow(/lost the writer lease/);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a follower whose read of the lease was slow counts a version's age from the read's answer, not from when it asked: it never takes a lease its holder still holds (audit 19: a slow read shortened the wait)", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    const b = make("b");
    await a.tick(); // a holds version 1
    await b.tick(); // b sees version 1
    // b's next read is sent, the engine takes 5 s to serve it, and a renews in the meantime: the read answers the renewal.
    const read = engine.getVersioned.bind(engine);
    engine.getVersioned = (async (index: string, id: string) => {
      advance(5000);
      if (id === "docs") await a.tick(); // a renews (version 2), valid until 5 s from now + ttl - margin
      return read(index, id);
    }) as typeof engine.getVersioned;
    await b.tick(); // b sees version 2
    engine.getVersioned = read;
    expect(() => a.assertDeciding()).not.toThrow();
    advance(7000); // a's term runs until 9 s after its renewal was sent; b saw version 2 for 7 s
    await b.tick();
    expect(b.role).toBe("follower");
    expect(() => a.assertDeciding()).not.toThrow();
    advance(1999); // 8,999 ms after a's renewal: a still decides
    await b.tick();
    expect(() => a.assertDeciding()).not.toThrow();
    expect(b.role).toBe("follower");
    advance(2001); // 11,000 ms after b's answer: a's term ended 2 s ago; b takes over
    expect(() => a.assertDeciding()).toThrow(/lost the writer lease/);
    await b.tick();
    expect(b.role).toBe("holder");
  });

  it("a follower takes over only after the same version stayed unrenewed for ttl + margin on its clock, then waits a refresh interval", async () => {
    const { make, advance } = setup();
    const a = make("a");
    const b = make("b");
    await a.tick();
    await b.tick(); // b sees version 1 now
    advance(10_999);
    await b.tick();
    expect(b.role).toBe("follower");
    advance(1);
    await b.tick(); // 11,000 ms unchanged: a is dead
    await sleep(0); // its takeover refresh (no _bulk of the index running)
    expect(b.role).toBe("holder");
    expect(() => b.assertDeciding()).toThrow(/waits one refresh interval/);
    expect(b.msUntilDeciding()).toBe(2000); // refresh 1 s + margin 1 s: a decision waits that out in its turn
    expect(a.msUntilDeciding()).toBe(0); // not the holder: nothing to wait for here
    advance(2000);
    expect(b.msUntilDeciding()).toBe(0);
    expect(() => b.assertDeciding()).not.toThrow();
    // a comes back: its renewal meets the new version and it steps down.
    await a.tick();
    expect(a.role).toBe("follower");
    expect(() => a.assertDeciding()).toThrow();
  });

  it("a write forwarded to a holder that stops renewing (frozen) is answered RETRY once the follower sees its lease end, not after the forward's timeout; forwards to a renewing holder are left alone (multi-sidecar audit: 30 s)", async () => {
    const engine = new MemoryEngine();
    let now = 1_000_000;
    const clock = () => now;
    // A frozen holder: the request is accepted and never answered; only an abort ends it.
    const hanging: Forwarder = (_url, _docs, _policy, _labels, signal) =>
      new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason as Error)));
    const make = (name: string, url = `http://${name}`) => new WriterLease(engine, { index: "docs", holder: name, url, ttlMs: 10_000, marginMs: 1000, refreshMs: 1000, clock }, hanging);
    const a = make("a");
    const b = make("b");
    await a.tick();
    await b.tick();
    const early = b.forward([doc], "mark")!;
    let settled = false;
    early.then(
      () => (settled = true),
      () => (settled = true),
    );
    advance3();
    await a.tick(); // a renews: the forward stays
    await b.tick();
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    // a stops renewing; 11 s unchanged on b's clock: the lease ended, and b takes it.
    now += 11_000;
    await b.tick();
    expect(b.role).toBe("holder");
    await expect(early).rejects.toMatchObject({ code: "RETRY", message: expect.stringMatching(/http:\/\/a stopped holding the writer lease/) });
    function advance3() {
      now += 3000;
    }
  });

  it("a renewing holder is never taken over, and of two followers racing for an expired lease exactly one wins", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    const b = make("b");
    const c = make("c");
    await a.tick();
    await Promise.all([b.tick(), c.tick()]);
    for (let i = 0; i < 6; i++) {
      advance(3000);
      await a.tick();
      await Promise.all([b.tick(), c.tick()]);
    }
    expect([a.role, b.role, c.role]).toEqual(["holder", "follower", "follower"]);
    advance(11_000); // a stops renewing
    await Promise.all([b.tick(), c.tick()]);
    expect([b.role, c.role].filter((r) => r === "holder")).toHaveLength(1);
    const lease = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, "docs");
    expect(lease?.source.term).toBe(2);
  });

  it("a released lease (graceful stop) is taken at once", async () => {
    const { make } = setup();
    const a = make("a");
    const b = make("b");
    await a.tick();
    await b.tick();
    await a.stop();
    await b.tick();
    expect(b.role).toBe("holder");
  });

  it("a lease document that disappears (its index deleted) is taken only after ttl + margin, by a sidecar that had seen it; its holder steps down at its next renewal", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    const b = make("b");
    await a.tick();
    await b.tick();
    await engine.deleteIndex(LEASE_INDEX);
    await b.tick(); // missing: a may still be deciding until its next renewal fails
    expect(b.role).toBe("follower");
    expect(() => a.assertDeciding()).not.toThrow();
    advance(3000);
    await a.tick(); // its renewal meets no document: it steps down
    expect(a.role).not.toBe("holder");
    advance(7999);
    await b.tick(); // 10,999 ms missing
    expect(b.role).not.toBe("holder");
    advance(1);
    await b.tick();
    await sleep(0);
    expect(b.role).toBe("holder");
    expect(() => b.assertDeciding()).toThrow(/waits one refresh interval/); // a takeover: it waits as after an unrenewed lease
    advance(2000);
    expect(() => b.assertDeciding()).not.toThrow();
  });

  it("a renewal whose first attempt was stored, and whose resend (the client's retry after a timeout) met that version, keeps the lease", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    await a.tick();
    const put = engine.putDocument.bind(engine);
    engine.putDocument = async (index, id, source, options) => {
      await put(index, id, source, options); // stored...
      throw new NeardupError("CONFLICT", `[${id}]: version conflict`); // ...and the resend conflicts with it
    };
    advance(3000);
    await a.tick();
    expect(a.role).toBe("holder");
    expect(a.events.lost).toBe(0);
    engine.putDocument = put;
    advance(3000);
    await a.tick(); // renews from the version it read back
    expect(a.events.renewed).toBe(2);
    expect(a.role).toBe("holder");
    // Another sidecar's version in its place is a loss, as before.
    const found = (await engine.getVersioned<LeaseDoc>(LEASE_INDEX, "docs"))!;
    await engine.putDocument(LEASE_INDEX, "docs", { ...found.source, holder: "b", term: found.source.term + 1 } as never, {});
    advance(3000);
    await a.tick();
    expect(a.role).not.toBe("holder");
    expect(a.events.lost).toBe(1);
  });

  it("a new holder decides only once a refresh of the data index it sent after taking over has ended, however long that takes", async () => {
    const { engine, make, advance } = setup();
    const a = make("a");
    const b = make("b");
    await a.tick();
    await b.tick();
    let release!: () => void;
    const refreshed: string[] = [];
    engine.refresh = (index: string) => {
      refreshed.push(index);
      return new Promise<void>((r) => (release = r)); // the engine's refresh runs long (under load)
    };
    advance(11_000);
    await b.tick(); // takes over
    expect(b.role).toBe("holder");
    await sleep(0); // the listing of running bulks (none) comes first
    expect(refreshed).toEqual(["docs"]);
    advance(5000); // well past refresh interval + margin
    expect(() => b.assertDeciding()).toThrow(/until the engine shows its predecessor's writes/);
    expect(b.msUntilDeciding()).toBe(100); // a decision polls; it does not wait for ever
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(() => b.assertDeciding()).not.toThrow();
  });

  /** Two sidecars, `a` holding the lease; `b` takes it over (after `a`'s ttl) with the engine's refreshes counted. */
  async function takeover() {
    const t = setup();
    const a = t.make("a");
    const b = t.make("b");
    await a.tick();
    await b.tick();
    const refreshed: string[] = [];
    const refresh = t.engine.refresh.bind(t.engine);
    t.engine.refresh = async (index: string) => {
      refreshed.push(index);
      await refresh(index);
    };
    return { ...t, a, b, refreshed, takeOver: async () => (t.advance(11_000), await b.tick()) };
  }

  it("a new holder decides only once the _bulk requests writing to the data index when it took over have ended, then their refresh (a predecessor's write the engine still held)", async () => {
    const { engine, b, refreshed, advance, takeOver } = await takeover();
    engine.bulkTasks.set("n:1", ["docs"]); // the predecessor's last write, queued in the engine
    engine.bulkTasks.set("n:2", ["other"]); // another index's: not waited for
    await takeOver();
    expect(b.role).toBe("holder");
    await sleep(450); // two polls
    advance(5000); // well past refresh interval + margin
    expect(refreshed).toEqual([]); // a refresh now would not show the queued write
    expect(() => b.assertDeciding()).toThrow(/until the engine shows its predecessor's writes/);
    // A listing that fails meanwhile keeps the wait for what was running.
    const list = engine.runningBulks.bind(engine);
    engine.runningBulks = () => Promise.reject(new Error("engine busy"));
    await sleep(450);
    expect(refreshed).toEqual([]);
    engine.runningBulks = list;
    engine.bulkTasks.set("n:3", ["docs"]); // started after the takeover: not the predecessor's, not waited for
    engine.bulkTasks.delete("n:1");
    await sleep(300);
    expect(refreshed).toEqual(["docs"]);
    expect(() => b.assertDeciding()).not.toThrow();
  });

  it("a takeover whose engine will not resolve the index's name still waits for the bulks that name it (the sidecar's own writes do)", async () => {
    const { engine, b, refreshed, takeOver, events } = await takeover();
    engine.resolveIndices = () => Promise.reject(new Error("engine busy"));
    engine.bulkTasks.set("n:1", ["docs"]);
    await takeOver();
    await sleep(450);
    expect(refreshed).toEqual([]);
    expect(() => b.assertDeciding()).toThrow(/until the engine shows its predecessor's writes/);
    engine.bulkTasks.delete("n:1");
    await sleep(300);
    expect(refreshed).toEqual(["docs"]);
    expect(events).not.toContain("b: lease predecessor writes unknown");
  });

  it("a takeover with no bulk running refreshes at once; one whose engine will not list its tasks refreshes and says so once; one whose predecessor's write outlives the bound decides after it and says so", async () => {
    const none = await takeover();
    await none.takeOver();
    await sleep(0);
    expect(none.refreshed).toEqual(["docs"]);
    expect(none.events).not.toContainEqual(expect.stringMatching(/predecessor/));

    const refused = await takeover();
    refused.engine.runningBulks = () => Promise.reject(new NeardupError("ENGINE_ERROR", "action [cluster:monitor/tasks/lists] is unauthorized"));
    await refused.takeOver();
    await sleep(0);
    expect(refused.refreshed).toEqual(["docs"]);
    expect(refused.events).toContain("b: lease predecessor writes unknown");

    const stuck = await takeover();
    stuck.engine.bulkTasks.set("n:1", ["docs"]);
    await stuck.takeOver();
    await sleep(250);
    expect(stuck.refreshed).toEqual([]);
    stuck.advance(PREDECESSOR_WRITES_MAX_MS);
    await stuck.b.tick(); // renewed meanwhile
    await sleep(250);
    expect(stuck.refreshed).toEqual(["docs"]);
    expect(stuck.events).toContain("b: lease predecessor writes running");
    expect(() => stuck.b.assertDeciding()).not.toThrow();
  });
});
