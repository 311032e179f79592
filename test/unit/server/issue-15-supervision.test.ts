/** Issue 15: the circuit breaker fails fast on a down engine, and /readyz follows a cached health probe. */
import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { CircuitBreaker, withBreaker } from "../../../src/server/breaker.js";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import type { Engine } from "../../../src/engine/index.js";

const down = () => Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "search: opensearch at http://x is unreachable (ConnectionError)"));

describe("circuit breaker (issue 15)", () => {
  it("opens after N consecutive unavailable errors, then fails fast with a Retry-After hint without calling", async () => {
    let t = 0;
    const states: string[] = [];
    const breaker = new CircuitBreaker({ failures: 3, openMs: 10_000, now: () => t, onStateChange: (s) => states.push(s) });
    const call = vi.fn(down);
    for (let i = 0; i < 3; i++) await expect(breaker.run("search", call)).rejects.toThrow(/unreachable/);
    expect(breaker.state).toBe("open");
    t = 4000;
    const fast = await breaker.run("search", call).catch((e: NeardupError) => e);
    expect(call).toHaveBeenCalledTimes(3);
    expect(fast).toMatchObject({ code: "ENGINE_UNAVAILABLE", details: { breaker: "open", retryAfterSeconds: 6 } });
    t = 10_000;
    await expect(breaker.run("search", () => Promise.resolve(1))).resolves.toBe(1);
    expect(breaker.state).toBe("closed");
    expect(states).toEqual(["open", "half-open", "closed"]);
  });
  it("does not count client errors (404, 409) as failures", async () => {
    const breaker = new CircuitBreaker({ failures: 1 });
    await expect(breaker.run("get", () => Promise.reject(new NeardupError("NOT_FOUND", "no")))).rejects.toThrow();
    expect(breaker.state).toBe("closed");
  });
  it("a failed half-open trial re-opens it", async () => {
    let t = 0;
    const breaker = new CircuitBreaker({ failures: 1, openMs: 1000, now: () => t });
    await expect(breaker.run("x", down)).rejects.toThrow();
    t = 1000;
    await expect(breaker.run("x", down)).rejects.toThrow(/unreachable/);
    expect(breaker.state).toBe("open");
  });
  it("wraps every engine method but close", async () => {
    const engine = { kind: "opensearch", search: vi.fn(down), close: vi.fn(() => Promise.resolve()) } as unknown as Engine;
    const breaker = new CircuitBreaker({ failures: 1 });
    const guarded = withBreaker(engine, breaker);
    await expect(guarded.search({ index: "i", body: {} })).rejects.toThrow(/unreachable/);
    await expect(guarded.search({ index: "i", body: {} })).rejects.toThrow(/circuit breaker open/);
    expect(engine.search).toHaveBeenCalledTimes(1);
    await guarded.close();
    expect(guarded.kind).toBe("opensearch");
  });
  it("503 answers from an open breaker carry its Retry-After", async () => {
    const readiness = new Readiness();
    const app = createApp({
      logger: createLogger("silent"),
      metrics: createMetrics({ defaultMetrics: false }),
      readiness,
      service: () => {
        throw new NeardupError("ENGINE_UNAVAILABLE", "check: circuit open", { details: { retryAfterSeconds: 7.2 } });
      },
    });
    const res = await request(app).post("/v1/check").send({ text: "hello" });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("8");
  });
});

describe("readiness probe (issue 15)", () => {
  it("follows the probe: ready while it answers, not ready (with a redacted reason) when it fails", async () => {
    vi.useFakeTimers();
    try {
      const readiness = new Readiness();
      readiness.markReady("opensearch 2.19");
      let healthy = true;
      const seen: boolean[] = [];
      readiness.watch(() => (healthy ? Promise.resolve("opensearch 2.19, cluster green") : Promise.reject(new Error("connect ECONNREFUSED http://u:hunter2@es:9200"))), 1000, (ok) => seen.push(ok));
      await vi.advanceTimersByTimeAsync(1000);
      expect(readiness.ready).toBe(true);
      healthy = false;
      await vi.advanceTimersByTimeAsync(1000);
      expect(readiness.ready).toBe(false);
      expect(readiness.reason).toContain("engine health probe failed");
      expect(readiness.reason).not.toContain("hunter2");
      healthy = true;
      await vi.advanceTimersByTimeAsync(1000);
      expect(readiness.ready).toBe(true);
      expect(seen).toEqual([true, false, true]);
      readiness.stopWatching();
    } finally {
      vi.useRealTimers();
    }
  });
  it("a probe that hangs counts as failed after its timeout", async () => {
    vi.useFakeTimers();
    try {
      const readiness = new Readiness();
      readiness.markReady();
      readiness.watch(() => new Promise<string>(() => undefined), 1000, undefined, 500);
      await vi.advanceTimersByTimeAsync(1600);
      expect(readiness.ready).toBe(false);
      expect(readiness.reason).toMatch(/took longer than 500 ms/);
      readiness.stopWatching();
    } finally {
      vi.useRealTimers();
    }
  });
});
