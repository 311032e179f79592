/**
 * SIGTERM while a `_bulk` is in flight through the proxy, with analysis on
 * worker threads: the bulk is answered whole, every acknowledged document is
 * stored, and the process exits 0. Before, the proxy closed its connections at
 * once (the client saw the socket drop: nothing acknowledged, the bulk sent
 * again) and the analysis pool could be stopped with a text inside jieba, which
 * aborted the process.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPoems } from "../../bench/poems.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { startSidecar } from "../helpers/sidecars.js";
import type { Engine } from "../../src/engine/types.js";

describe.each(engineTargets())("stopping a sidecar on $kind $version ($source)", (target) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("SIGTERM during a proxy bulk: the bulk is answered whole, every item stored, exit code 0", async () => {
    const index = uniqueIndex("neardup-shutdown");
    const sidecar = await startSidecar(target, {
      NEARDUP_INDEX: uniqueIndex("neardup-shutdown-api"),
      NEARDUP_PROXY_PORT: "0",
      NEARDUP_PROXY_INDICES: `${index}:message:mark`,
      NEARDUP_WORKERS: "2",
      NEARDUP_SHUTDOWN_TIMEOUT_MS: "60000",
    });
    try {
      const poems = loadPoems();
      const n = 3000;
      const body = Array.from({ length: n }, (_, i) => `${JSON.stringify({ index: { _index: index, _id: `d${i}` } })}\n${JSON.stringify({ message: poems.slice((i * 5) % (poems.length - 5), ((i * 5) % (poems.length - 5)) + 5).join("\n") })}\n`).join("");
      const started = Date.now();
      const answer = fetch(`${sidecar.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body }).then(async (res) => ({ status: res.status, json: (await res.json()) as { items: Record<string, { _id: string; status: number }>[] }, at: Date.now() }));
      await new Promise((r) => setTimeout(r, 1500));
      const exited = new Promise<number | null>((resolve) => sidecar.process.once("exit", (code) => resolve(code)));
      const killedAt = Date.now();
      sidecar.process.kill("SIGTERM");
      const res = await answer;
      expect(res.at, "the bulk was still in flight at SIGTERM").toBeGreaterThan(killedAt);
      expect(res.status).toBe(200);
      expect(res.json.items).toHaveLength(n);
      const statuses = new Set(res.json.items.map((it) => Object.values(it)[0]!.status));
      expect([...statuses]).toEqual([201]);
      expect(await exited).toBe(0);
      expect(killedAt - started).toBeLessThan(res.at - started);
      await engine.refresh(index);
      const stored = await engine.mget(index, res.json.items.map((it) => Object.values(it)[0]!._id), ["neardup.status"]);
      expect(stored.size).toBe(n);
    } finally {
      await sidecar.stop();
      await engine.deleteIndex(index);
    }
  }, 180_000);
});
