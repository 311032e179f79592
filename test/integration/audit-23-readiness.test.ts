/**
 * Audit 23 F1 and F2, on the real engines: /readyz said 200 "ready" while a sidecar restarted after a crash
 * refused every write, waiting out its dead predecessor's writer lease (F1), and while the sidecar's own index
 * was red (F2).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../src/config/config.js";
import type { Engine } from "../../src/engine/types.js";
import { createLogger } from "../../src/server/logger.js";
import { startService, type RunningService } from "../../src/server/service.js";
import { LEASE_INDEX, type LeaseDoc } from "../../src/service/writer-lease.js";
import { connectTarget, engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Waits for a /readyz answer `ok` accepts and returns that answer, so that the test asserts on the state it waited
 * for: read again, a probe that failed in between (on a loaded machine) would answer something else.
 */
async function untilReadyz(what: string, service: RunningService, ok: (r: Readyz) => boolean, ms = 30_000): Promise<Readyz> {
  const end = Date.now() + ms;
  let last: Readyz | undefined;
  while (Date.now() < end) {
    if (ok((last = await readyz(service)))) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}; last /readyz: ${JSON.stringify(last)}`);
}

interface Readyz {
  status: number;
  body: { status: string; reason: string; lease?: { index: string; state: string; holder_url?: string; seconds_left?: number } };
}

async function readyz(service: RunningService): Promise<Readyz> {
  const res = await fetch(`${service.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Readyz["body"] };
}

async function leaseHeld(service: RunningService, index: string): Promise<string | undefined> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return new RegExp(`^neardup_writer_lease_held\\{lease="api",index="${index}"\\} (\\d)$`, "m").exec(text)?.[1];
}

const start = (target: ReturnType<typeof engineTargets>[number], env: Record<string, string>) =>
  startService(
    buildConfig({ NEARDUP_PORT: "0", NEARDUP_ENGINE_URL: target.url, NEARDUP_ENGINE_USERNAME: target.username, NEARDUP_ENGINE_PASSWORD: target.password, NEARDUP_ENGINE_PROBE_MS: "500", ...env }),
    { logger: createLogger("silent"), startLocalEngine: () => Promise.reject(new Error("unused")) },
  );

describe.each(engineTargets())("audit 23 readiness on $kind $version", (target) => {
  let engine: Engine;
  const services: RunningService[] = [];
  const indices: string[] = [];
  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    for (const index of indices) {
      await engine.deleteIndex(index).catch(() => undefined);
      await rawEngineRequest(target, "DELETE", `/${LEASE_INDEX}/_doc/${encodeURIComponent(index)}`).catch(() => undefined);
    }
    await engine.close();
  });

  it("F1: a sidecar restarted after a crash is 503 while it waits out its dead predecessor's lease, naming the wait; 200 once writes are taken; a later loss of the lease keeps it 200, and the body and metric show it", async () => {
    const index = uniqueIndex("neardup-a23-lease");
    indices.push(index);
    const own = "http://127.0.0.1:1"; // the address both the dead predecessor and its successor advertise
    await engine.createIndex(LEASE_INDEX, { settings: { index: { auto_expand_replicas: "0-1" } } }).catch(() => undefined);
    // The predecessor held the lease and was SIGKILLed: never renewed, never released.
    await engine.putDocument(LEASE_INDEX, index, { holder: "killed", url: own, term: 1, expires_at: Date.now() + 3000 } satisfies LeaseDoc as never);
    const service = await start(target, { NEARDUP_INDEX: index, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_ADVERTISE_URL: own });
    services.push(service);
    await service.engineReady;
    const started = Date.now();

    // Waited for by its lease field, which a probe failed on a loaded machine would leave out (its 503 says another thing).
    const waiting = await untilReadyz("the lease wait on /readyz", service, (r) => r.body.lease !== undefined, 2000);
    expect(waiting.status).toBe(503);
    expect(waiting.body.reason).toMatch(new RegExp(`writes to index ${index} wait \\(503 RETRY\\) for its writer lease, held by a predecessor at this sidecar's own address .* in about \\d+ s`));
    expect(waiting.body.lease).toMatchObject({ index, state: "waiting", holder_url: own });
    expect(waiting.body.lease!.seconds_left).toBeGreaterThan(0);
    expect(waiting.body.lease!.seconds_left).toBeLessThanOrEqual(6);
    expect(await leaseHeld(service, index)).toBe("0");
    const refused = await fetch(`${service.url}/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "a", text: "the first text written after the restart" }) });
    expect(refused.status).toBe(503);

    const ready = await untilReadyz("/readyz 200", service, (r) => r.status === 200);
    // Not before the lease could be taken over: ttl + margin after it was first read.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    expect(ready.body.lease).toEqual({ index, state: "held", holder_url: own });
    expect(await leaseHeld(service, index)).toBe("1");
    const written = await fetch(`${service.url}/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "a", text: "the first text written after the restart" }) });
    expect(written.status).toBe(201);

    // Another sidecar takes the lease (as after this one froze): writes move, /readyz stays 200 and says so.
    await engine.putDocument(LEASE_INDEX, index, { holder: "other", url: "http://127.0.0.1:2", term: 99, expires_at: Date.now() + 3000 } satisfies LeaseDoc as never);
    // `lease` is in the body only while the engine side is ready: a probe that failed meanwhile does not end the wait.
    const after = await untilReadyz("the lease lost", service, (r) => r.body.lease !== undefined && r.body.lease.state !== "held");
    expect(after.status).toBe(200);
    expect(await leaseHeld(service, index)).toBe("0");
  });

  it("F2: a red index of others leaves the sidecar ready; its own index red is 503 naming it, and ready again once assigned", async () => {
    const index = uniqueIndex("neardup-a23-red");
    const other = uniqueIndex("neardup-a23-other");
    indices.push(index, other);
    const service = await start(target, { NEARDUP_INDEX: index });
    services.push(service);
    await service.engineReady;
    await untilReadyz("/readyz 200", service, (r) => r.status === 200);
    const nowhere = { "index.routing.allocation.require._name": "no-such-node" };
    // Another index whose primary cannot be assigned: the cluster is red, this sidecar's index is not.
    await rawEngineRequest(target, "PUT", `/${other}?wait_for_active_shards=0`, { settings: { number_of_replicas: 0, ...nowhere } });
    await until("the cluster red", async () => ((await rawEngineRequest(target, "GET", "/_cluster/health")) as { status: string }).status === "red");
    const seen = await untilReadyz("the probe to see it", service, (r) => r.body.reason.includes("cluster red"));
    expect(seen).toMatchObject({ status: 200, body: { status: "ready" } });

    // Its own index made again with nowhere to go: its primary is not assigned. (Closed, moved nowhere and opened
    // again, Elasticsearch sometimes kept the primary where it was, and the index was not red.)
    // Deleted first: a missing index of its own leaves it ready (the next write creates it), the probe saying so.
    await rawEngineRequest(target, "DELETE", `/${index}`);
    const missing = await untilReadyz("the probe to see it missing", service, (r) => r.body.reason.includes(`index ${index} missing`));
    expect(missing).toMatchObject({ status: 200, body: { status: "ready" } });
    await rawEngineRequest(target, "PUT", `/${index}?wait_for_active_shards=0`, { settings: { number_of_replicas: 0, ...nowhere } });
    await until("the index red", async () => ((await rawEngineRequest(target, "GET", `/_cluster/health/${index}?timeout=0s`)) as { status: string }).status === "red");
    // Waited for by its reason: a probe that ran between the delete and the create saw another state.
    const red = await untilReadyz("/readyz 503 naming the red index", service, (r) => r.body.reason.includes(`index ${index} is red`));
    expect(red.status).toBe(503);
    expect(red.body.reason).toContain(`index ${index} is red: a primary shard is not assigned`);

    await rawEngineRequest(target, "PUT", `/${index}/_settings`, { "index.routing.allocation.require._name": null });
    await untilReadyz("/readyz 200 again", service, (r) => r.status === 200);
    await engine.deleteIndex(other);
  });
});
