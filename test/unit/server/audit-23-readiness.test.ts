/**
 * Audit 23: /readyz said 200 "ready" while every write was refused (F1: a restarted sidecar waiting out its dead
 * predecessor's writer lease) and while the sidecar's own index was red (F2); the lease state shows in the body and
 * in `neardup_writer_lease_held`.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/server/app.js";
import { LeaseReadiness } from "../../../src/server/lease-readiness.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { healthOf } from "../../../src/server/service.js";
import { WriterLease } from "../../../src/service/writer-lease.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function leases() {
  const engine = new MemoryEngine();
  let now = 1_000_000;
  const make = (holder: string, url: string) => new WriterLease(engine, { index: "docs", holder, url, ttlMs: 10_000, marginMs: 1000, refreshMs: 1000, clock: () => now }, () => Promise.reject(new Error("unused")));
  return { make, advance: (ms: number) => (now += ms) };
}

describe("audit 23 F1: readiness waits until the sidecar can take writes once, then follows the engine alone", () => {
  it("a sidecar restarted after a crash is 503 naming the lease wait and its end until it holds the lease; a later handover keeps it ready, the body shows the state", async () => {
    const { make, advance } = leases();
    const dead = make("old", "http://me");
    await dead.tick(); // held, then SIGKILLed: never renewed nor released
    const lease = make("new", "http://me");
    const readiness = new Readiness();
    readiness.setCondition(new LeaseReadiness("docs", "http://me", () => lease).condition);
    readiness.markReady("opensearch 2.19.6, cluster green");
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness });

    await lease.tick();
    let res = await request(app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("not ready");
    expect(res.body.reason).toMatch(/writes to index docs wait \(503 RETRY\) for its writer lease, held by a predecessor at this sidecar's own address.*in about 15 s/);
    expect(res.body.lease).toEqual({ index: "docs", state: "waiting", holder_url: "http://me", seconds_left: 15 });

    advance(11_000);
    await lease.tick(); // taken over: decides once the predecessor's writes show
    res = await request(app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.body.lease.state).toBe("taking_over");
    await sleep(20);
    advance(2000);
    res = await request(app).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", reason: "opensearch 2.19.6, cluster green", lease: { index: "docs", state: "held", holder_url: "http://me" } });

    // Its engine does not answer the renewals: writes wait, /readyz stays 200 (a fleet in failover stays in the
    // load balancer) and says so.
    advance(9500);
    res = await request(app).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body.lease.state).toBe("waiting");
    await lease.stop();
  });

  it("a follower is ready once it has seen the holder renew (a live holder to forward to), not on a first read of a lease whose holder may be dead", async () => {
    const { make, advance } = leases();
    const holder = make("h", "http://holder");
    await holder.tick();
    const follower = make("f", "http://follower");
    const readiness = new Readiness();
    readiness.setCondition(new LeaseReadiness("docs", "http://follower", () => follower).condition);
    readiness.markReady("ok");
    expect(readiness.snapshot()).toMatchObject({ ready: false, details: { lease: { state: "unknown" } } });
    await follower.tick();
    expect(readiness.snapshot().ready).toBe(false);
    expect(readiness.reason).toMatch(/held by the sidecar at http:\/\/holder, not seen renewing it since this sidecar started/);
    advance(3400);
    await holder.tick();
    await follower.tick();
    expect(readiness.snapshot()).toEqual({ ready: true, reason: "ok", details: { lease: { index: "docs", state: "forwarding", holder_url: "http://holder" } } });
    // The engine not ready comes first, and shows no lease.
    readiness.markNotReady("connecting");
    expect(readiness.snapshot()).toEqual({ ready: false, reason: "connecting", details: {} });
    await Promise.all([holder.stop(), follower.stop()]);
  });

  it("neardup_writer_lease_held is 1 for a lease this sidecar holds, 0 for one another holds, per lease and index", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.leaseSources.add(() => [
      { lease: "api", index: "docs", held: true },
      { lease: "proxy", index: "logs-1", held: false },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('neardup_writer_lease_held{lease="api",index="docs"} 1');
    expect(text).toContain('neardup_writer_lease_held{lease="proxy",index="logs-1"} 0');
  });
});

describe("audit 23 F2: the health probe looks at the sidecar's own index when the cluster is red", () => {
  const engine = (cluster: string, own: string) => ({ health: (index?: string) => Promise.resolve(index === undefined ? cluster : own) });
  it("green or yellow: the cluster's status, no second request", async () => {
    let asked = 0;
    const counted = { health: (index?: string) => (asked++, Promise.resolve(index === undefined ? "yellow" : "red")) };
    expect(await healthOf(counted, "opensearch 2.19.6", "docs")).toBe("opensearch 2.19.6, cluster yellow");
    expect(asked).toBe(1);
  });
  it("red, with our index red: not ready, naming the index", async () => {
    await expect(healthOf(engine("red", "red"), "opensearch 2.19.6", "docs")).rejects.toThrow(/index docs is red: a primary shard is not assigned/);
  });
  it("red, with our index missing (deleted; the next write creates it): ready, saying so", async () => {
    expect(await healthOf(engine("red", "missing"), "opensearch 2.19.6", "docs")).toBe("opensearch 2.19.6, cluster red (index docs missing: the next write creates it)");
  });
  it("red, with other indices red and ours not: ready, saying so", async () => {
    expect(await healthOf(engine("red", "green"), "opensearch 2.19.6", "docs")).toBe("opensearch 2.19.6, cluster red (index docs green)");
  });
});
