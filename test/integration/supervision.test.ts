/**
 * Issue 15: engine supervision on a real engine. When the embedded engine dies
 * the service says so (/readyz 503, a log line, a counted restart), restarts it
 * with backoff and is ready again; graceful shutdown lets an in-flight request
 * finish and stops the engine last.
 *
 * The "embedded engine" here is a stand-in around the shared real engine: its
 * process is an EventEmitter the test makes exit, so no shared engine is killed.
 */
import { EventEmitter } from "node:events";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../src/config/config.js";
import { connectEngine } from "../../src/engine/index.js";
import { createLogger } from "../../src/server/logger.js";
import { startService, type OwnedEngine, type RunningService } from "../../src/server/service.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";

const target = engineTargets().find((t) => t.kind === "opensearch") ?? engineTargets()[0]!;

async function until(what: string, check: () => boolean | Promise<boolean>, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("engine supervision (issue 15)", () => {
  const index = uniqueIndex("neardup-supervision");
  const logs: string[] = [];
  const events: string[] = [];
  const engines: EventEmitter[] = [];
  let service: RunningService;
  // A restart's engine start waits for this gate, so the test sees /readyz during the restart however slow the
  // machine is (it once missed the 100 ms backoff under CI load and saw the engine back instead); the reason
  // names the exit and the restart while the engine starts too.
  let gate: Promise<void> = Promise.resolve();

  const startLocalEngine = async (): Promise<OwnedEngine> => {
    await gate;
    const proc = new EventEmitter();
    engines.push(proc);
    events.push(`engine ${engines.length} started`);
    return {
      url: target.url,
      stop: async () => {
        events.push(`engine ${engines.indexOf(proc) + 1} stopped`);
      },
      onExit: (listener) => void proc.once("exit", listener),
    };
  };

  afterAll(async () => {
    await service?.close();
    const engine = await connectEngine({ url: target.url, username: target.username, password: target.password });
    await engine.deleteIndex(index).catch(() => undefined);
    await engine.close();
  });

  it("restarts a dead embedded engine with backoff, logs and counts it, and is ready again", async () => {
    const config = buildConfig({ NEARDUP_PORT: "0", NEARDUP_INDEX: index, NEARDUP_ENGINE_PROBE_MS: "200", NEARDUP_SHUTDOWN_TIMEOUT_MS: "20000" });
    const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) });
    service = await startService(config, { logger: createLogger("info", sink), startLocalEngine, restartBaseMs: 100, retryDelayMs: 100 });
    await service.engineReady;
    expect(service.readiness.ready).toBe(true);

    let openGate = (): void => undefined;
    gate = new Promise((resolve) => (openGate = resolve));
    engines[0]!.emit("exit", 137, "SIGKILL");
    expect(service.readiness.ready).toBe(false);
    let reason = "";
    await until("/readyz to name the restart", async () => {
      const ready = await fetch(`${service.url}/readyz`);
      reason = ((await ready.json()) as { reason: string }).reason;
      return ready.status === 503 && reason.includes("restart 1");
    });
    // The backoff (100 ms) or the start after it: either way the reason names the exit and the restart.
    expect(reason).toMatch(/^the embedded engine exited \(code 137, signal SIGKILL\); restart 1( in 100 ms|: starting the embedded OpenSearch)$/);
    expect(logs.join("")).toMatch(/"code":137,"signal":"SIGKILL","attempt":1,"delayMs":100/);
    const during = await fetch(`${service.url}/v1/check`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: "during the restart" }) });
    expect(during.status).toBe(503);
    expect(during.headers.get("retry-after")).not.toBeNull();
    openGate();

    await until("ready after the restart", () => service.readiness.ready);
    expect(engines).toHaveLength(2);
    expect(logs.join("")).toContain("embedded engine exited unexpectedly; restarting");
    expect(await service.metrics.registry.getSingleMetricAsString("neardup_engine_restarts_total")).toMatch(/neardup_engine_restarts_total 1/);
    const after = await fetch(`${service.url}/v1/check`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: "after the restart" }) });
    expect(after.status).toBe(200);
    // The analysis pool's load is on /metrics once the pool has started (it starts with the service).
    let scraped = "";
    // A health probe runs its first interval after the restart's watch: waited for too (a fast machine scraped before it).
    await until("the analysis pool's gauges and a health probe on /metrics", async () => {
      scraped = await (await fetch(`${service.url}/metrics`)).text();
      return scraped.includes("neardup_analysis_pool_texts{") && /operation="health",outcome="ok"\} [1-9]/.test(scraped);
    });
    expect(scraped).toMatch(/^neardup_analysis_pool_texts\{state="in_work"\} 0$/m);
    expect(scraped).toMatch(/^neardup_analysis_pool_texts\{state="waiting"\} 0$/m);
    expect(scraped).toMatch(/^neardup_analysis_pool_refused_texts_total 0$/m);
    // The engine calls of the service (the check's candidate search among them) are timed by method and outcome.
    expect(scraped).toMatch(/^neardup_engine_request_duration_seconds_count\{operation="health",outcome="ok"\} [1-9]\d*$/m);
    expect(scraped).toMatch(/^neardup_engine_request_duration_seconds_count\{operation="(search|msearch)",outcome="ok"\} [1-9]\d*$/m);
  });

  it("a dying engine during a restart backs off further (doubling) and still comes back", async () => {
    engines[1]!.emit("exit", 1, null);
    await until("restart 2 announced", () => logs.join("").includes('"attempt":2'));
    await until("ready again", () => service.readiness.ready);
    expect(logs.join("")).toMatch(/"attempt":2,"delayMs":200/);
  });

  it("graceful shutdown finishes the in-flight request, then stops the engine last", async () => {
    const big = "The quick brown fox jumps over the lazy dog. ".repeat(6000);
    const inFlight = fetch(`${service.url}/v1/compare`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ a: big, b: big + "!" }) }).then(async (res) => {
      events.push(`request answered ${res.status}`);
      return res;
    });
    // Close once the request is in (a fixed sleep could close before its headers were read, on a loaded machine).
    await until("the request in flight", async () => (await service.metrics.inFlight.get()).values[0]?.value === 1);
    const closing = service.close().then(() => events.push("service closed"));
    const res = await inFlight;
    await closing;
    expect(res.status).toBe(200);
    const order = events.slice(events.indexOf("request answered 200"));
    expect(order).toEqual(["request answered 200", `engine ${engines.length} stopped`, "service closed"]);
    expect(service.readiness.reason).toBe("shutting down");
  });
});
