import { describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { LEASE_INDEX, WriterLease, type Forwarder, type LeaseDoc } from "../../../src/service/writer-lease.js";
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
  const make = (name: string) => new WriterLease(engine, { index: "docs", holder: name, url: `http://${name}`, ttlMs: 10_000, marginMs: 1000, refreshMs: 1000, clock }, forwarder);
  return { engine, make, forwarded, advance: (ms: number) => (now += ms) };
}

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
});
