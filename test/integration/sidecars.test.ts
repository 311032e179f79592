/**
 * Issue 11: first one wins across several sidecar processes on one index,
 * coordinated only through the engine (the writer lease), and a sidecar
 * killed mid-stream loses nothing it acknowledged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectTarget, engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { nearDuplicates } from "../helpers/cluster-texts.js";
import { startSidecar, type Sidecar } from "../helpers/sidecars.js";
import { LEASE_INDEX, type LeaseDoc } from "../../src/service/writer-lease.js";
import type { Engine } from "../../src/engine/types.js";

interface Sent {
  id: string;
  status: number;
  body: { status?: string; duplicate_of?: string | null };
}

/** POSTs one document, resending to the next sidecar on a 503, a 429 or a dead connection (as a client would). */
async function send(sidecars: Sidecar[], start: number, id: string, text: string, deadline: number): Promise<Sent> {
  for (let attempt = 0; ; attempt++) {
    const sidecar = sidecars[(start + attempt) % sidecars.length]!;
    try {
      const res = await fetch(`${sidecar.url}/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id, text }) });
      const body = (await res.json()) as Sent["body"];
      if ((res.status !== 503 && res.status !== 429) || Date.now() > deadline) return { id, status: res.status, body };
    } catch {
      if (Date.now() > deadline) return { id, status: 0, body: {} };
    }
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
  }
}

describe.each(engineTargets())("several sidecars on $kind $version ($source)", (target) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await engine.close();
  });

  async function startThree(index: string, workers = "1"): Promise<Sidecar[]> {
    const env = { NEARDUP_INDEX: index, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: workers };
    const first = await startSidecar(target, env); // the first creates the index and takes the lease
    return [first, ...(await Promise.all([startSidecar(target, env), startSidecar(target, env)]))];
  }

  async function storedStatuses(index: string, ids: string[]): Promise<Map<string, string>> {
    const docs = await engine.mget<{ neardup: { status: string } }>(index, ids, ["neardup.status"]);
    return new Map([...docs].map(([id, source]) => [id, source.neardup.status]));
  }

  it("100 concurrent near-duplicates spread over 3 sidecars give exactly one original, 20 times in a row", async () => {
    const fp = await sharedFingerprinter();
    const index = uniqueIndex("neardup-sidecars");
    const sidecars = await startThree(index);
    try {
      for (let round = 0; round < 20; round++) {
        const texts = nearDuplicates(1000 + round, 100);
        // Precondition from the core: every text is a near-duplicate of every other.
        const analyses = texts.map((t) => fp.analyze(t));
        for (let i = 1; i < analyses.length; i += 9) for (let j = 0; j < i; j += 7) expect(fp.compare(analyses[i]!, analyses[j]!).duplicate).toBe(true);
        const deadline = Date.now() + 30_000;
        const results = await Promise.all(texts.map((text, i) => send(sidecars, i % 3, `r${round}-${i}`, text, deadline)));
        expect(results.filter((r) => r.status !== 201)).toEqual([]);
        expect(results.filter((r) => r.body.status === "original")).toHaveLength(1);
        const stored = await storedStatuses(index, results.map((r) => r.id));
        expect(stored.size).toBe(100);
        expect([...stored.values()].filter((s) => s === "original")).toHaveLength(1);
      }
    } finally {
      await Promise.all(sidecars.map((s) => s.stop()));
      await engine.deleteIndex(index);
    }
  }, 300_000);

  it("kill the writer mid-stream: another takes over, still exactly one original, every acknowledged document stored", async () => {
    const index = uniqueIndex("neardup-failover");
    const sidecars = await startThree(index, "2"); // analysis on a pool of 2 worker threads in each sidecar
    try {
      const lease = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, index);
      const writer = sidecars.find((s) => s.url === lease?.source.url);
      expect(writer).toBeDefined();
      const texts = nearDuplicates(77, 150);
      const deadline = Date.now() + 60_000;
      let sentCount = 0;
      const results: Sent[] = [];
      const worker = async (w: number) => {
        for (let i = w; i < texts.length; i += 10) {
          sentCount += 1;
          if (sentCount === 50) writer!.kill(); // the writer dies with requests in flight
          results.push(await send(sidecars, i % 3, `k-${i}`, texts[i]!, deadline));
        }
      };
      await Promise.all(Array.from({ length: 10 }, (_, w) => worker(w)));
      const acknowledged = results.filter((r) => r.status === 201);
      expect(acknowledged.length).toBeGreaterThan(100); // the survivors took over and kept accepting
      const stored = await storedStatuses(index, texts.map((_, i) => `k-${i}`));
      for (const r of acknowledged) expect(stored.get(r.id), `acknowledged ${r.id} must be stored`).toBe(r.body.status);
      expect([...stored.values()].filter((s) => s === "original")).toHaveLength(1);
      const after = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, index);
      expect(after?.source.url).not.toBe(writer!.url);
      expect(after!.source.term).toBeGreaterThan(lease!.source.term);
      // The new holder counts its taking of the lease on /metrics.
      const holder = sidecars.find((s) => s.url === after!.source.url)!;
      const scraped = await (await fetch(`${holder.url}/metrics`)).text();
      expect(scraped).toMatch(/^neardup_lease_events_total\{lease="api",event="acquired"\} [1-9]\d*$/m);
    } finally {
      await Promise.all(sidecars.map((s) => s.stop()));
      await engine.deleteIndex(index);
    }
  }, 300_000);

  it("a write forwarded to a frozen holder is answered RETRY once its lease ends (API 503, proxy per-item 429), not at the forward's timeout; the holder, thawed, writes none of it (multi-sidecar audit: 30 s)", async () => {
    const index = uniqueIndex("neardup-frozen");
    const logs = uniqueIndex("neardup-frozen-logs");
    // A forward's timeout (the engine timeout) far past the lease's end, so only the lease can answer first.
    const env = { NEARDUP_INDEX: index, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: "1", NEARDUP_ENGINE_TIMEOUT_MS: "600000", NEARDUP_PROXY_PORT: "0", NEARDUP_PROXY_INDICES: `${logs}:message:mark` };
    const holder = await startSidecar(target, env);
    const sidecars = [holder];
    try {
      const warm = await fetch(`${holder.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: `{"index":{"_index":"${logs}","_id":"warm"}}\n{"message":"一段与测试无关的文字，用来创建索引并取得写入租约。"}\n` });
      expect(warm.status).toBe(200);
      const follower = await startSidecar(target, env);
      sidecars.push(follower);
      expect((await engine.getVersioned<LeaseDoc>(LEASE_INDEX, index))?.source.url).toBe(holder.url);
      expect((await engine.getVersioned<LeaseDoc>(LEASE_INDEX, `proxy:${logs}`))?.source.url).toBe(holder.proxyUrl);
      holder.process.kill("SIGSTOP");
      const [api, proxy] = await Promise.all([
        fetch(`${follower.url}/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "f1", text: "冻结的写入者不会回答这个请求，直到它的租约结束。" }) }),
        fetch(`${follower.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: `{"index":{"_index":"${logs}","_id":"f2"}}\n{"message":"冻结的写入者不会回答这个请求，直到它的租约结束。"}\n` }),
      ]);
      expect(api.status).toBe(503);
      expect(api.headers.get("retry-after")).not.toBeNull();
      expect(((await api.json()) as { error: { message: string } }).error.message).toMatch(/stopped holding the writer lease/);
      // Every item of the bulk failed that way: the engine's whole-request 429 (es_rejected_execution_exception).
      expect(proxy.status).toBe(429);
      expect(((await proxy.json()) as { error: { reason: string } }).error.reason).toMatch(/stopped holding the writer lease/);
      holder.process.kill("SIGCONT");
      await new Promise((r) => setTimeout(r, 2000));
      await engine.refresh(index);
      await engine.refresh(logs);
      expect(await engine.get(index, "f1")).toBeUndefined();
      expect(await engine.get(logs, "f2")).toBeUndefined();
    } finally {
      holder.process.kill("SIGCONT");
      await Promise.all(sidecars.map((s) => s.stop()));
      await engine.deleteIndex(index);
      await engine.deleteIndex(logs);
    }
  }, 300_000);

  it("a sidecar whose NEARDUP_INDEX names the same documents another way (an alias of the index, the index behind the alias) refuses to start while another's HTTP API holds their lease, as does one with the lease off (audit 19, F1: two leases, two originals)", async () => {
    const index = uniqueIndex("neardup-alias-lease");
    const alias = `${index}-al`;
    const holder = await startSidecar(target, { NEARDUP_INDEX: index, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: "1" });
    try {
      await rawEngineRequest(target, "POST", "/_aliases", { actions: [{ add: { index, alias, is_write_index: true } }] });
      const refused = /neardup failed to start: INVALID_CONFIG: index \S+ is deduplicated by the HTTP API of the sidecar at \S+ \(its NEARDUP_INDEX /;
      // The start's error, or "started" (the sidecar then stopped, so that a failing run leaves none behind).
      const startError = (env: Record<string, string>) =>
        startSidecar(target, env).then(
          async (s) => (await s.stop(), "started"),
          (err: unknown) => String(err),
        );
      expect(await startError({ NEARDUP_INDEX: alias, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: "1" })).toMatch(refused);
      expect(await startError({ NEARDUP_INDEX: index, NEARDUP_WRITER_LEASE: "off", NEARDUP_WORKERS: "1" })).toMatch(refused);
      expect(await startError({ NEARDUP_INDEX: alias, NEARDUP_WRITER_LEASE: "off", NEARDUP_WORKERS: "1" })).toMatch(refused);
      // The same name with the lease on is a follower: it starts, and its writes go to the holder.
      const follower = await startSidecar(target, { NEARDUP_INDEX: index, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: "1" });
      await follower.stop();
    } finally {
      await holder.stop();
      await engine.deleteIndex(index);
    }
  }, 300_000);
});
