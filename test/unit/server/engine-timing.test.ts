/** Engine calls are timed by method and outcome into `neardup_engine_request_duration_seconds`. */
import { describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { withTiming } from "../../../src/server/engine-timing.js";
import { createMetrics } from "../../../src/server/metrics.js";
import type { Engine } from "../../../src/engine/index.js";

function fakeEngine(): Engine {
  return {
    kind: "opensearch",
    info: { kind: "opensearch", version: "2.19.6" },
    search: () => Promise.resolve({ hits: { hits: [] } }),
    bulk: () => Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "bulk: unreachable")),
    mget: () => Promise.reject(new Error("not a NeardupError")),
    close: () => Promise.resolve(),
  } as unknown as Engine;
}

describe("engine call timing", () => {
  it("records each call's time by method and outcome, and passes values and errors through unchanged", async () => {
    const seen: { operation: string; outcome: string; seconds: number }[] = [];
    let t = 0;
    const engine = withTiming(fakeEngine(), { observe: (labels, seconds) => seen.push({ ...labels, seconds }) }, () => (t += 250));
    await expect(engine.search({ index: "x", body: {} })).resolves.toEqual({ hits: { hits: [] } });
    const failed = await engine.bulk([]).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(NeardupError);
    expect((failed as NeardupError).code).toBe("ENGINE_UNAVAILABLE");
    await expect(engine.mget("x", ["a"])).rejects.toThrow("not a NeardupError");
    expect(engine.info).toEqual({ kind: "opensearch", version: "2.19.6" });
    await engine.close();
    expect(seen).toEqual([
      { operation: "search", outcome: "ok", seconds: 0.25 },
      { operation: "bulk", outcome: "engine_unavailable", seconds: 0.25 },
      { operation: "mget", outcome: "error", seconds: 0.25 },
    ]);
  });

  it("feeds the service's histogram", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const engine = withTiming(fakeEngine(), metrics.engineDuration);
    await engine.search({ index: "x", body: {} });
    await engine.search({ index: "x", body: {} });
    await engine.bulk([]).catch(() => undefined);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/neardup_engine_request_duration_seconds_count\{operation="search",outcome="ok"\} 2/);
    expect(text).toMatch(/neardup_engine_request_duration_seconds_count\{operation="bulk",outcome="engine_unavailable"\} 1/);
  });
});
