/**
 * Issue 15: engine supervision against a dying real JVM. The service starts
 * its embedded OpenSearch the way `npm start` does (server/embedded.ts, a
 * real node from tools/local-opensearch on a fixed port), a document is
 * acknowledged, and the JVM is killed with SIGKILL by its pid. Then:
 * /readyz answers 503 naming the exit, the supervisor restarts the engine
 * after its backoff (logged, counted in neardup_engine_restarts_total),
 * /readyz is 200 again, on the same port (the killed node's connections
 * leave that port in TIME_WAIT, which the launcher must not take for "in
 * use"), and the acknowledged document is still there.
 *
 * It needs java and the built tools/local-opensearch (as the global setup
 * does); it does not touch the shared engine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { buildConfig } from "../../src/config/config.js";
import { connectEngine } from "../../src/engine/index.js";
import { embeddedOpenSearch } from "../../src/server/embedded.js";
import { createLogger } from "../../src/server/logger.js";
import { startService, type OwnedEngine, type RunningService } from "../../src/server/service.js";

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A port nobody listens on right now (the OS picks it, we let it go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function readyz(url: string): Promise<{ status: number; reason: string }> {
  const res = await fetch(`${url}/readyz`);
  const body = (await res.json()) as { reason?: string; engine?: string };
  return { status: res.status, reason: body.reason ?? body.engine ?? "" };
}

describe("engine supervision against a real JVM killed with SIGKILL (issue 15)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "neardup-supervision-"));
  const logs: string[] = [];
  const started: OwnedEngine[] = [];
  let service: RunningService | undefined;

  afterAll(async () => {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  it("restarts the killed engine with backoff, logs and counts it, is ready again on the same port, and keeps the acknowledged document", async () => {
    const port = await freePort();
    const index = "neardup-jvm-kill";
    const config = buildConfig({
      NEARDUP_PORT: "0",
      NEARDUP_LOCAL_PORT: String(port),
      NEARDUP_LOCAL_DATA: dataDir,
      NEARDUP_INDEX: index,
      NEARDUP_ENGINE_PROBE_MS: "500",
    });
    const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) });
    const logger = createLogger("info", sink);
    const embedded = embeddedOpenSearch(logger, { heap: "512m" });
    service = await startService(config, {
      logger,
      startLocalEngine: async (local) => {
        const engine = await embedded(local);
        started.push(engine);
        return engine;
      },
      restartBaseMs: 500,
    });
    const url = service.url;
    await service.engineReady;
    expect(await readyz(url)).toMatchObject({ status: 200 });
    expect(started).toHaveLength(1);
    expect(started[0]!.url).toBe(`http://127.0.0.1:${port}`);

    // Acknowledged before the kill: the engine has it in its translog (fsync per request by default).
    const text = "Acknowledged before the engine was killed: this document must survive the restart of the embedded OpenSearch.";
    const put = await fetch(`${url}/v1/documents`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ id: "before-kill", text }) });
    expect(put.status).toBe(201);

    const pid = started[0]!.pid!;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");

    let down = { status: 0, reason: "" };
    // The reason names the exit through the backoff and the JVM's start (a probe may say the engine is unreachable first).
    await until("/readyz to name the exit", async () => (down = await readyz(url)).status === 503 && down.reason.includes("exited"), 30_000);
    expect(down.reason).toMatch(/^the embedded engine exited \(code null, signal SIGKILL\); restart 1( in 500 ms|: starting the embedded OpenSearch)$/);
    const during = await fetch(`${url}/v1/check`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }) });
    expect(during.status).toBe(503);

    // A restart takes a JVM start (10-60 s on a busy 2-core machine).
    await until("/readyz 200 after the restart", async () => (await readyz(url)).status === 200, 240_000);
    expect(started).toHaveLength(2);
    expect(started[1]!.url).toBe(started[0]!.url); // same port: TIME_WAIT did not block it
    expect(started[1]!.pid).not.toBe(pid);
    const text_ = logs.join("");
    expect(text_).toMatch(/"signal":"SIGKILL","attempt":1,"delayMs":500,"msg":"embedded engine exited unexpectedly; restarting"/);
    expect(text_).toContain("embedded engine restarted");
    expect(text_).not.toContain("embedded engine restart failed");
    expect(await service.metrics.registry.getSingleMetricAsString("neardup_engine_restarts_total")).toMatch(/^neardup_engine_restarts_total 1$/m);
    expect(await service.metrics.registry.getSingleMetricAsString("neardup_engine_up")).toMatch(/^neardup_engine_up 1$/m);

    // The acknowledged document is in the restarted engine, and the service finds it again.
    const engine = await connectEngine({ url: started[1]!.url });
    try {
      const stored = await engine.get<{ text: string; neardup: { status: string } }>(index, "before-kill");
      expect(stored?.text).toBe(text);
      expect(stored?.neardup.status).toBe("original");
    } finally {
      await engine.close();
    }
    const after = await fetch(`${url}/v1/check`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }) });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ status: "duplicate", duplicate_of: "before-kill" });
  }, 400_000);
});
