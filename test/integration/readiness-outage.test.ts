/**
 * Issue 15: /readyz follows the engine through an outage (it stayed 200 for a
 * 74 s outage before), and the circuit breaker stops hammering a down engine:
 * once open, engine calls fail at once with 503 + Retry-After, and the service
 * recovers by itself when the engine is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../src/config/config.js";
import { connectEngine } from "../../src/engine/index.js";
import { createLogger } from "../../src/server/logger.js";
import { startService, type RunningService } from "../../src/server/service.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

async function until(what: string, check: () => Promise<boolean>, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(engineTargets())("readiness and breaker through an outage on $kind $version", (target) => {
  const index = uniqueIndex("neardup-outage");
  let proxy: TcpProxy;
  let service: RunningService;
  const post = (path: string, body: unknown) => fetch(`${service.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

  beforeAll(async () => {
    proxy = await startTcpProxy(target.url);
    const config = buildConfig({
      NEARDUP_PORT: "0",
      NEARDUP_ENGINE_URL: proxy.url,
      NEARDUP_ENGINE_USERNAME: target.username,
      NEARDUP_ENGINE_PASSWORD: target.password,
      NEARDUP_INDEX: index,
      NEARDUP_ENGINE_PROBE_MS: "1000", // also the probe's timeout: 200 ms failed probes of a healthy engine on a loaded machine
      NEARDUP_BREAKER_FAILURES: "2",
      NEARDUP_BREAKER_OPEN_MS: "60000",
      NEARDUP_ENGINE_TIMEOUT_MS: "5000",
    });
    service = await startService(config, { logger: createLogger("silent"), startLocalEngine: () => Promise.reject(new Error("unused")) });
    await service.engineReady;
  });
  afterAll(async () => {
    proxy.restore();
    await service.close();
    const engine = await connectEngine({ url: target.url, username: target.username, password: target.password });
    await engine.deleteIndex(index).catch(() => undefined);
    await engine.close();
    await proxy.close();
  });

  it("goes not ready within a probe when the engine is cut, opens the breaker, and comes back", async () => {
    // Both set by the health probe: waited for, since a probe that timed out on a loaded machine turns them for a second.
    const probedUp = async () => (await fetch(`${service.url}/readyz`)).status === 200 && /neardup_engine_up 1/.test(await service.metrics.registry.getSingleMetricAsString("neardup_engine_up"));
    await until("ready, engine up", probedUp);
    expect((await post("/v1/check", { text: "before the outage, a plain sentence" })).status).toBe(200);

    proxy.cut();
    await until("/readyz 503", async () => (await fetch(`${service.url}/readyz`)).status === 503);
    const reason = ((await (await fetch(`${service.url}/readyz`)).json()) as { reason: string }).reason;
    expect(reason).toMatch(/engine health probe failed/);

    // Two unavailable answers open the breaker; later calls fail fast, naming it, with the time left.
    for (let i = 0; i < 2; i++) expect((await post("/v1/check", { text: `during the outage ${i}` })).status).toBe(503);
    const fast = await post("/v1/check", { text: "during the outage, breaker open" });
    expect(fast.status).toBe(503);
    expect(((await fast.json()) as { error: { message: string } }).error.message).toMatch(/circuit breaker open/);
    expect(Number(fast.headers.get("retry-after"))).toBeGreaterThan(5);
    expect(await service.metrics.registry.getSingleMetricAsString("neardup_engine_breaker_state")).toMatch(/neardup_engine_breaker_state 1/);

    proxy.restore();
    // The health probe sees the engine back and closes the breaker long before its open time is over.
    await until("ready, engine up again", probedUp);
    const after = await post("/v1/check", { text: "after the outage, a plain sentence" });
    expect(after.status).toBe(200);
  });
});
