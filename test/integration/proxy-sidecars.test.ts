/**
 * Issue 12 with issue 11: first one wins across several sidecars' `_bulk`
 * proxies on one index. Each sidecar process exposes the proxy; the one
 * holding the index's proxy writer lease decides, the others forward their
 * fingerprinted items to it and answer in the engine's `_bulk` shape, in
 * request order, with `update` and pass-through items kept in order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { nearDuplicates } from "../helpers/cluster-texts.js";
import { startSidecar, type Sidecar } from "../helpers/sidecars.js";
import { LEASE_INDEX, type LeaseDoc } from "../../src/service/writer-lease.js";
import type { Engine } from "../../src/engine/types.js";

/** Past 2^53: `JSON.parse` reads it as 1234567890123456800. */
const BIG = "1234567890123456789";

type Item = Record<string, { status: number; result?: string; error?: { type: string }; neardup?: { status: string; duplicate_of: string | null } }>;

/** What a client saw for one near-duplicate: the status and verdict of its `index` item, after retries. */
interface Sent {
  id: string;
  status: number;
  verdict: string | undefined;
  /** The final status of each of the request's four items, in request order. */
  statuses: number[];
}

/**
 * One `_bulk` per near-duplicate: index it (fingerprinted), update it (passes
 * through, after it), index and update a document of an index no rule
 * matches. As the bulk helpers and shippers do, items answered 429 or 503 are
 * sent again (to the next sidecar), the others are done: a bulk's items
 * succeed or fail one by one, so a pass-through item written beside a
 * refused fingerprinted one is not sent twice. A whole 429/503 or a dead
 * connection sends every item not done again.
 */
async function send(sidecars: Sidecar[], start: number, index: string, passIndex: string, id: string, text: string, deadline: number): Promise<Sent> {
  const items: [object, string][] = [
    // A number JSON.parse cannot hold: the writer (the lease holder, for forwarded items) writes the client's line as sent.
    [{ index: { _index: index, _id: id } }, `{"message":${JSON.stringify(text)},"big":${BIG}}`],
    [{ update: { _index: index, _id: id } }, JSON.stringify({ doc: { tag: `u-${id}` } })],
    [{ index: { _index: passIndex, _id: id } }, JSON.stringify({ n: 1 })],
    [{ update: { _index: passIndex, _id: id } }, JSON.stringify({ doc: { n: 2 } })],
  ];
  const ops = items.map(([action]) => Object.keys(action)[0]!);
  const statuses: number[] = items.map(() => 0);
  let verdict: string | undefined;
  let pending = items.map((_, k) => k);
  const retryable = (status: number) => status === 0 || status === 429 || status === 503;
  for (let attempt = 0; ; attempt++) {
    const sidecar = sidecars[(start + attempt) % sidecars.length]!;
    const body = pending.map((k) => `${JSON.stringify(items[k]![0])}\n${items[k]![1]}\n`).join("");
    try {
      const res = await fetch(`${sidecar.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
      const json = (await res.json()) as { items?: Item[] };
      if (res.status === 200 && json.items) {
        // Items in the engine's shape and request order.
        expect(json.items.map((it) => Object.keys(it)[0])).toEqual(pending.map((k) => ops[k]));
        pending.forEach((k, n) => {
          const item = Object.values(json.items![n]!)[0]!;
          statuses[k] = item.status;
          if (k === 0) verdict = item.neardup?.status;
        });
      } else for (const k of pending) statuses[k] = res.status;
    } catch {
      // the sidecar died with the request in flight: not acknowledged
      for (const k of pending) statuses[k] = 0;
    }
    pending = pending.filter((k) => retryable(statuses[k]!));
    if (pending.length === 0 || Date.now() > deadline) return { id, status: statuses[0]!, verdict, statuses };
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
  }
}

describe.each(engineTargets())("several sidecars' _bulk proxies on $kind $version ($source)", (target) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** Three sidecar processes, each with its proxy; the first to take a `_bulk` for `index` creates it and holds its lease. */
  /**
   * `ttl`: the writer lease's; short where a holder is killed, the default where none is (a follower may rightly take
   * a lease whose renewals a loaded machine held up for ttl + 1 s, and the test asserts it never moved).
   */
  async function startThree(index: string, passIndex: string, ttl = "10000"): Promise<Sidecar[]> {
    const env = {
      NEARDUP_INDEX: uniqueIndex("neardup-proxy-api"), // the HTTP API's own index, unused here
      NEARDUP_PROXY_PORT: "0",
      NEARDUP_PROXY_INDICES: `${index}:message:mark`,
      NEARDUP_LEASE_TTL_MS: ttl,
      NEARDUP_WORKERS: "1",
    };
    const first = await startSidecar(target, env);
    const warm = await send([first], 0, index, passIndex, "warm-up", "一段与测试无关的文字，用来创建索引并取得写入租约。", Date.now() + 30_000);
    expect(warm.status).toBe(201);
    const lease = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, `proxy:${index}`);
    expect(lease?.source.url).toBe(first.proxyUrl);
    return [first, ...(await Promise.all([startSidecar(target, env), startSidecar(target, env)]))];
  }

  async function stored(index: string, ids: string[]): Promise<Map<string, { tag?: string; neardup?: { status: string } }>> {
    await engine.refresh(index);
    return engine.mget<{ tag?: string; neardup?: { status: string } }>(index, ids, ["tag", "neardup.status"]);
  }

  async function cleanUp(sidecars: Sidecar[], ...indices: string[]): Promise<void> {
    await Promise.all(sidecars.map((s) => s.stop()));
    for (const index of indices) await engine.deleteIndex(index);
  }

  it("60 concurrent near-duplicates through 3 proxies give exactly one original, 20 times in a row; items in the engine's shape and request order", async () => {
    const fp = await sharedFingerprinter();
    const index = uniqueIndex("neardup-proxy-sidecars");
    const passIndex = uniqueIndex("neardup-proxy-pass");
    const sidecars = await startThree(index, passIndex);
    try {
      for (let round = 0; round < 20; round++) {
        const texts = nearDuplicates(2000 + round, 60);
        const analyses = texts.map((t) => fp.analyze(t));
        for (let i = 1; i < analyses.length; i += 9) for (let j = 0; j < i; j += 7) expect(fp.compare(analyses[i]!, analyses[j]!).duplicate).toBe(true);
        const deadline = Date.now() + 30_000;
        const results = await Promise.all(texts.map((text, i) => send(sidecars, i % 3, index, passIndex, `r${round}-${i}`, text, deadline)));
        for (const r of results) {
          expect(r.statuses).toEqual([201, 200, 201, 200]);
        }
        expect(results.filter((r) => r.verdict === "original")).toHaveLength(1);
        const ids = results.map((r) => r.id);
        const docs = await stored(index, ids);
        expect(docs.size).toBe(60);
        expect([...docs.values()].filter((d) => d.neardup?.status === "original")).toHaveLength(1);
        // The update that followed each fingerprinted write in its request landed after it.
        for (const id of ids) expect(docs.get(id)?.tag).toBe(`u-${id}`);
        if (round === 0) {
          // Two of three items went through a follower to the lease holder: every stored source kept the client's number.
          const query = JSON.stringify({ size: 100, query: { ids: { values: ids } } });
          const raw = await fetch(`${target.url}/${index}/_search`, { method: "POST", headers: { "content-type": "application/json" }, body: query }).then((r) => r.text());
          expect(raw.split(`"big":${BIG}`).length - 1).toBe(60);
        }
        const passed = await engine.mget<{ n: number; neardup?: unknown }>(passIndex, ids);
        expect([...passed.values()].every((d) => d.n === 2 && d.neardup === undefined)).toBe(true);
      }
      // The followers forwarded: exactly one lease holder decided for all three.
      const lease = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, `proxy:${index}`);
      expect(lease?.source.url).toBe(sidecars[0]!.proxyUrl);
    } finally {
      await cleanUp(sidecars, index, passIndex);
    }
  }, 300_000);

  it("kill the writer mid-stream: another proxy takes over, exactly one original, every acknowledged item stored", async () => {
    const index = uniqueIndex("neardup-proxy-failover");
    const passIndex = uniqueIndex("neardup-proxy-failover-pass");
    const sidecars = await startThree(index, passIndex, "3000");
    try {
      const lease = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, `proxy:${index}`);
      const writer = sidecars.find((s) => s.proxyUrl === lease?.source.url)!;
      const texts = nearDuplicates(88, 150);
      const deadline = Date.now() + 90_000;
      let sentCount = 0;
      const results: Sent[] = [];
      const worker = async (w: number) => {
        for (let i = w; i < texts.length; i += 10) {
          sentCount += 1;
          if (sentCount === 50) writer.kill(); // the writer dies with chunks in flight
          results.push(await send(sidecars, i % 3, index, passIndex, `k-${i}`, texts[i]!, deadline));
        }
      };
      await Promise.all(Array.from({ length: 10 }, (_, w) => worker(w)));
      const acknowledged = results.filter((r) => r.status === 200 || r.status === 201);
      expect(acknowledged.length).toBeGreaterThan(100); // the survivors took over and kept accepting
      const docs = await stored(index, texts.map((_, i) => `k-${i}`));
      for (const r of acknowledged) expect(docs.get(r.id)?.neardup?.status, `acknowledged ${r.id} must be stored as answered`).toBe(r.verdict);
      expect([...docs.values()].filter((d) => d.neardup?.status === "original")).toHaveLength(1);
      const after = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, `proxy:${index}`);
      expect(after?.source.url).not.toBe(writer.proxyUrl);
      expect(after!.source.term).toBeGreaterThan(lease!.source.term);
      // The new holder counts its taking of the proxy's lease on its API port's /metrics.
      const holder = sidecars.find((s) => s.proxyUrl === after!.source.url)!;
      const scraped = await (await fetch(`${holder.url}/metrics`)).text();
      expect(scraped).toMatch(/^neardup_lease_events_total\{lease="proxy",event="acquired"\} [1-9]\d*$/m);
    } finally {
      await cleanUp(sidecars, index, passIndex);
    }
  }, 300_000);
  it("a text the lease holder's NEARDUP_MAX_TEXT_CHARS refuses, forwarded by a sidecar whose limit is higher, is written as sent, not answered 413", async () => {
    const index = uniqueIndex("neardup-proxy-limits");
    const env = { NEARDUP_INDEX: uniqueIndex("neardup-proxy-api"), NEARDUP_PROXY_PORT: "0", NEARDUP_PROXY_INDICES: `${index}:message:skip`, NEARDUP_WORKERS: "1" };
    // The holder, as in the middle of a rolling change to a lower limit.
    const holder = await startSidecar(target, { ...env, NEARDUP_MAX_TEXT_CHARS: "400" });
    const sidecars = [holder];
    try {
      const warm = await send([holder], 0, index, uniqueIndex("neardup-proxy-limits-pass"), "warm-up", "一段与测试无关的文字，用来创建索引并取得写入租约。", Date.now() + 30_000);
      expect(warm.status).toBe(201);
      sidecars.push(await startSidecar(target, env));
      const follower = sidecars[1]!;
      const long = "长".repeat(250) + "文本".repeat(125); // 500 code units: over the holder's limit only (the texts below are 336)
      const [a, b] = nearDuplicates(77, 2);
      const lines = [
        { index: { _index: index, _id: "short-1" } },
        { message: a },
        { index: { _index: index, _id: "long" } },
        { message: long, big: 1 },
        { index: { _index: index, _id: "short-2" } },
        { message: b },
        // The same id twice with a text over the limit: written apart, the two could land out of order; they keep the refusal.
        { index: { _index: index, _id: "twice" } },
        { message: long },
        { index: { _index: index, _id: "twice" } },
        { message: long + "!" },
      ];
      const res = await fetch(`${follower.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: lines.map((l) => JSON.stringify(l)).join("\n") + "\n" });
      expect(res.status).toBe(200);
      const items = ((await res.json()) as { items: Item[] }).items.map((it) => it.index!);
      expect(items.map((it) => it.status)).toEqual([201, 201, 200, 413, 413]);
      expect(items[0]!.neardup?.status).toBe("original");
      expect(items[1]!.neardup).toMatchObject({ status: "unchecked" });
      expect(items[2]!.neardup).toMatchObject({ status: "duplicate", duplicate_of: "short-1" });
      const docs = await stored(index, ["short-1", "long", "short-2", "twice"]);
      expect([...docs.keys()].sort()).toEqual(["long", "short-1"]);
      expect(docs.get("long")?.neardup).toBeUndefined();
      const lease = await engine.getVersioned<LeaseDoc>(LEASE_INDEX, `proxy:${index}`);
      expect(lease?.source.url).toBe(holder.proxyUrl); // the follower forwarded
    } finally {
      await cleanUp(sidecars, index);
    }
  }, 120_000);

  it("the proxy's decisions count on /metrics like the API's (ops audit: neardup_checks_total stayed 0 for proxy streams)", async () => {
    const index = uniqueIndex("neardup-proxy-metrics");
    const sidecar = await startSidecar(target, { NEARDUP_INDEX: uniqueIndex("neardup-proxy-api"), NEARDUP_PROXY_PORT: "0", NEARDUP_PROXY_INDICES: `${index}:message:mark`, NEARDUP_WORKERS: "1" });
    try {
      const [a, b] = nearDuplicates(91, 2);
      const lines = [{ index: { _index: index, _id: "a" } }, { message: a }, { index: { _index: index, _id: "b" } }, { message: b }, { index: { _index: index, _id: "c" } }, { message: "另一段完全无关的文字，说的是别的事情。" }];
      const res = await fetch(`${sidecar.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: lines.map((l) => JSON.stringify(l)).join("\n") + "\n" });
      expect(((await res.json()) as { items: Item[] }).items.map((it) => it.index!.neardup?.status)).toEqual(["original", "duplicate", "original"]);
      const scraped = await (await fetch(`${sidecar.url}/metrics`)).text();
      expect(scraped).toMatch(/^neardup_checks_total\{operation="index"\} 3$/m);
      expect(scraped).toMatch(/^neardup_duplicates_found_total\{policy="mark"\} 1$/m);
      expect(scraped).toMatch(/^neardup_engine_hits_per_lookup_count [1-9]\d*$/m);
    } finally {
      await cleanUp([sidecar], index);
    }
  }, 120_000);

  it("the HTTP API of one sidecar and the proxy of another never both decide one index (audit 12: two originals in 50 of 50 rounds): the later one writes unchecked, or does not start", async () => {
    const apiIndex = uniqueIndex("neardup-api-owned");
    const proxyIndex = uniqueIndex("neardup-proxy-owned");
    const started: Sidecar[] = [];
    try {
      // The API decides apiIndex (its lease); another sidecar's proxy has a rule for it.
      const api = await startSidecar(target, { NEARDUP_INDEX: apiIndex, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: "1" });
      started.push(api);
      const proxy = await startSidecar(target, { NEARDUP_INDEX: uniqueIndex("neardup-proxy-api"), NEARDUP_PROXY_PORT: "0", NEARDUP_PROXY_INDICES: `${apiIndex}:text:mark,${proxyIndex}:text:mark`, NEARDUP_LEASE_TTL_MS: "3000", NEARDUP_WORKERS: "1" });
      started.push(proxy);
      const [a, b] = nearDuplicates(92, 2);
      expect((await fetch(`${api.url}/v1/documents`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "a", text: a }) })).status).toBe(201);
      const res = await fetch(`${proxy.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: `${JSON.stringify({ index: { _index: apiIndex, _id: "b" } })}\n${JSON.stringify({ text: b })}\n` });
      const item = ((await res.json()) as { items: Item[] }).items[0]!.index!;
      expect(item.status).toBe(201); // stored, never dropped
      expect(item.neardup).toMatchObject({ status: "unchecked", reason: expect.stringContaining("HTTP API") });
      // The other way round: the proxy decides proxyIndex (its lease); a sidecar whose API would decide it does not start.
      const warm = await fetch(`${proxy.proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: `${JSON.stringify({ index: { _index: proxyIndex, _id: "w" } })}\n${JSON.stringify({ text: a })}\n` });
      expect(((await warm.json()) as { items: Item[] }).items[0]!.index!.neardup?.status).toBe("original");
      await expect(startSidecar(target, { NEARDUP_INDEX: proxyIndex, NEARDUP_WORKERS: "1" })).rejects.toThrow(/_bulk proxy/);
      // With its own lease off too (audit 14, F7: it started, and both decided).
      await expect(startSidecar(target, { NEARDUP_INDEX: proxyIndex, NEARDUP_WRITER_LEASE: "off", NEARDUP_WORKERS: "1" })).rejects.toThrow(/_bulk proxy/);
    } finally {
      await cleanUp(started, apiIndex, proxyIndex);
    }
  }, 180_000);
});
