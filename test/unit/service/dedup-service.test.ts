import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { NeardupError } from "../../../src/core/errors.js";
import { Registry } from "prom-client";
import { DedupService } from "../../../src/service/dedup-service.js";
import { createDedupMetrics } from "../../../src/service/metrics.js";
import { RecentWindows } from "../../../src/service/recent-windows.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { englishVariants, LONG_ZH, MOM_A, MOM_B, NEWS_EN, RECIPE_EN, variants } from "../../fixtures/texts/near-duplicates.js";
import { createAnalyzer, type Analyzer } from "../../../src/workers/index.js";
import { faultyDedupService } from "../../helpers/faulty-engine.js";

describe("DedupService on an engine double", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });

  it("answers a retryable 503 while the recent-writes window is over its byte budget, and accepts again once entries expire; the window gauges follow at each scrape", async () => {
    const engine = new MemoryEngine();
    const registry = new Registry();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "budget", recentWindowBytes: 1, recentWindowMs: 1100 }), createDedupMetrics(registry));
    const gauge = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    await service.ensureIndex();
    const [first] = await service.index([parseDocInput({ id: "a", text: LONG_ZH })], "mark");
    expect(first).not.toBeInstanceOf(NeardupError);
    expect(service.recentWindow.bytes).toBeGreaterThan(1);
    const refused = service.index([parseDocInput({ id: "b", text: RECIPE_EN })], "mark");
    await expect(refused).rejects.toMatchObject({ code: "RETRY", status: 503 });
    expect(await gauge("neardup_recent_window_documents")).toBe(1);
    expect(await gauge("neardup_recent_window_bytes")).toBeGreaterThan(1);
    // Two refreshes end after the acknowledgement (the engine's schedule): the service's next reading of the
    // refresh counts (every 200 ms) confirms the write visible, and 1.1 s of hold later it leaves the window.
    await engine.refresh("budget");
    await engine.refresh("budget");
    // No write since: the gauges read the window when scraped (they kept the last request's figures). Polled,
    // not read once after a fixed sleep: on a loaded machine the confirmation and the hold may run late.
    for (let i = 0; i < 200 && (await gauge("neardup_recent_window_documents")) !== 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await gauge("neardup_recent_window_documents")).toBe(0);
    expect(await gauge("neardup_recent_window_bytes")).toBe(0);
    const [again] = await service.index([parseDocInput({ id: "b", text: RECIPE_EN })], "mark");
    expect(again).toMatchObject({ id: "b", status: "original" });
  });

  it("services sharing the sidecar's windows share one budget and one gauge: a full window of one index refuses writes to another (audit 24, F4: a budget each, the gauge showing the API's alone)", async () => {
    const engine = new MemoryEngine();
    const registry = new Registry();
    const windows = new RecentWindows();
    const metrics = createDedupMetrics(registry);
    const options = (index: string) => resolveDedupOptions({ index, recentWindowBytes: 1, recentWindowMs: 60_000 });
    const api = new DedupService(engine, fp, options("api-docs"), metrics, undefined, undefined, windows);
    const proxied = new DedupService(engine, fp, options("logs-a"), { ...metrics }, undefined, undefined, windows);
    const gauge = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    try {
      await api.ensureIndex();
      await proxied.ensureIndex();
      const [first] = await proxied.index([parseDocInput({ id: "a", text: LONG_ZH })], "mark");
      expect(first).not.toBeInstanceOf(NeardupError);
      // The API's own window is empty; the sidecar's holds the proxy index's write.
      expect(api.recentWindow.bytes).toBe(0);
      await expect(api.index([parseDocInput({ id: "b", text: RECIPE_EN })], "mark")).rejects.toMatchObject({ code: "RETRY", status: 503, message: expect.stringMatching(/over 2 indices' windows \(this index's: 0 bytes\)/) });
      expect(await gauge("neardup_recent_window_documents")).toBe(1);
      expect(await gauge("neardup_recent_window_bytes")).toBe(proxied.recentWindow.bytes);
      // A service let go leaves the sidecar's windows.
      proxied.stop();
      expect(windows.count).toBe(1);
      expect(await gauge("neardup_recent_window_documents")).toBe(0);
    } finally {
      api.stop();
      proxied.stop();
    }
  });

  it("a service started over an index whose last writes the engine has not shown yet decides only after a refresh shows them (audit 17, C1: a sidecar restarted after a crash, lease off, kept a second original)", async () => {
    const engine = new MemoryEngine();
    const [a, b] = variants(LONG_ZH, 2);
    const before = new DedupService(engine, fp, resolveDedupOptions({ index: "restart", lshKeyBudget: 0 }));
    await before.ensureIndex();
    engine.indices.get("restart")!.refreshMs = 60_000; // refresh_interval 60s: nothing shows on its own
    const [x] = await before.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "mark");
    expect(x).toMatchObject({ id: "x", status: "original" });
    // The process dies (its window with it); a new one starts over the same index.
    const after = new DedupService(engine, fp, resolveDedupOptions({ index: "restart", lshKeyBudget: 0, recentWindowMs: 90_000 }));
    await after.ensureIndex();
    const [y] = await after.index([parseDocInput({ id: "y", text: b!, time: 2000 })], "mark");
    expect(y).toMatchObject({ id: "y", status: "duplicate", duplicate_of: "x" });
  });

  it("waits for the shards of an index another writer has just made before its first lookups (audit 12: a whole 503, all shards failed)", async () => {
    // The index exists (another sidecar's create won) but its primary is not active yet: searches fail as the
    // engines fail them then, until the primaries are up, which the wait for them brings about here.
    class Starting extends MemoryEngine {
      active = false;
      override async waitForPrimaries(): Promise<boolean> {
        this.active = true;
        return true;
      }
      override async search<T>(request: Parameters<MemoryEngine["search"]>[0]) {
        if (!this.active && request.index === "starting") throw new NeardupError("ENGINE_UNAVAILABLE", "search: all shards failed (no_shard_available_action_exception)");
        return super.search<T>(request);
      }
    }
    const engine = new Starting();
    await engine.createIndex("starting");
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "starting", lshKeyBudget: 0 }));
    await service.ensureIndex();
    const [a] = await service.index([parseDocInput({ id: "a", text: LONG_ZH })], "mark");
    expect(a).toMatchObject({ id: "a", status: "original" });
  });

  it("a write whose answer was lost (a timeout after the engine took it) stays in the recent-writes window: a near-duplicate sent after its 503 is its duplicate, not a second original (audit 12)", async () => {
    const { engine, faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "ghost", lshKeyBudget: 0 });
    const [a, b] = variants(LONG_ZH, 2);
    faults.lostAnswer.add("x");
    const [x] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "reject");
    expect(x).toMatchObject({ code: "ENGINE_UNAVAILABLE", status: 503 });
    expect((x as NeardupError).message).toMatch(/may have been written/);
    expect(await engine.get("ghost", "x")).toBeDefined(); // the engine took it
    // No refresh yet: only the recent-writes window can show x. Under reject, y is refused for it.
    const [y] = await service.index([parseDocInput({ id: "y", text: b!, time: 2000 })], "reject");
    expect(y).toMatchObject({ id: "y", status: "duplicate", duplicate_of: "x" });
    // The client sends x again, as told: it is decided again (itself left out) and stays the original.
    faults.lostAnswer.delete("x");
    const [again] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "reject");
    expect(again).toMatchObject({ id: "x", status: "original" });
  });

  it("a write whose answer was lost stays in the window until the engine shows it, however late it lands (audit 13, E4)", async () => {
    const memory = new MemoryEngine();
    memory.indices.set("late", { docs: new Map(), searchable: new Map(), refreshMs: 100 });
    const { engine, faults, service } = await faultyDedupService(memory, fp, { index: "late", lshKeyBudget: 0, recentWindowMs: 200, unknownWriteHoldMs: 60_000 });
    const [a, b] = variants(LONG_ZH, 2);
    faults.landLater.add("x");
    const [x] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "mark");
    expect((x as NeardupError).message).toMatch(/may have been written/);
    // Longer than the engine's refresh, the watch's fallback refresh (2.1 s here) and the window's hold together.
    await new Promise((r) => setTimeout(r, 3000));
    expect(await engine.get("late", "x")).toBeUndefined(); // not landed yet
    const [y] = await service.index([parseDocInput({ id: "y", text: b!, time: 2000 })], "mark");
    expect(y).toMatchObject({ id: "y", status: "duplicate", duplicate_of: "x" });
    // x lands; once the engine's search shows it, it leaves the window like any written document.
    await faults.land();
    await engine.refresh("late");
    for (let k = 0; k < 100 && service.recentWindow.entries > 0; k++) await new Promise((r) => setTimeout(r, 100));
    expect(service.recentWindow.entries).toBe(0);
    const [z] = await service.index([parseDocInput({ id: "z", text: b!, time: 3000 })], "mark");
    expect(z).toMatchObject({ id: "z", status: "duplicate", duplicate_of: "x" });
  });

  it("a write whose answer was lost, sent again and refused by the engine for the document itself, leaves the window at once (audit 16: near-duplicates were skipped for the whole hold, nothing stored)", async () => {
    const { faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "refused-again", lshKeyBudget: 0, unknownWriteHoldMs: 600_000 });
    const [a, b] = variants(LONG_ZH, 2);
    faults.landLater.add("x");
    const [x] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "skip");
    expect((x as NeardupError).message).toMatch(/may have been written/);
    faults.landLater.delete("x");
    faults.refuse.add("x"); // the engine refuses the document itself (a mapping conflict)
    const [again] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "skip");
    expect(again).toMatchObject({ code: "INVALID_INPUT" });
    const [y] = await service.index([parseDocInput({ id: "y", text: b!, time: 2000 })], "skip");
    expect(y).toMatchObject({ id: "y", status: "original" });
  });

  it("unknownWritesSettled waits for writes of unknown outcome until the engine shows them, at most its timeout (a stopping holder calls it before letting its lease go; audit 16)", async () => {
    const memory = new MemoryEngine();
    memory.indices.set("settle", { docs: new Map(), searchable: new Map(), refreshMs: 100 });
    const { engine, faults, service } = await faultyDedupService(memory, fp, { index: "settle", lshKeyBudget: 0, recentWindowMs: 200 });
    faults.landLater.add("x");
    await service.index([parseDocInput({ id: "x", text: LONG_ZH, time: 1000 })], "mark");
    expect(await service.unknownWritesSettled(300)).toBe(1);
    const settled = service.unknownWritesSettled(10_000);
    await faults.land();
    await engine.refresh("settle");
    expect(await settled).toBe(0);
  });

  it("a write whose answer was lost and that never lands leaves the window after unknownWriteHoldMs", async () => {
    const memory = new MemoryEngine();
    memory.indices.set("lost", { docs: new Map(), searchable: new Map(), refreshMs: 100 });
    const { faults, service } = await faultyDedupService(memory, fp, { index: "lost", lshKeyBudget: 0, recentWindowMs: 200, unknownWriteHoldMs: 1000 });
    const [a, b] = variants(LONG_ZH, 2);
    faults.landLater.add("x");
    const [x] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "mark");
    expect((x as NeardupError).message).toMatch(/may have been written/);
    expect(service.recentWindow.entries).toBe(1);
    for (let k = 0; k < 50 && service.recentWindow.entries > 0; k++) await new Promise((r) => setTimeout(r, 100));
    expect(service.recentWindow.entries).toBe(0);
    const [y] = await service.index([parseDocInput({ id: "y", text: b!, time: 2000 })], "mark");
    expect(y).toMatchObject({ id: "y", status: "original" });
  });

  it("of near-duplicates of equal time in one request, the first sent is the original, whatever their ids (audit 14, F5: ties went by id, random for documents sent without one)", async () => {
    const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: "ties", lshKeyBudget: 0 }));
    await service.ensureIndex();
    const [a, b, c] = variants(LONG_ZH, 3);
    const results = await service.index([parseDocInput({ id: "z-first", text: a!, time: 1000 }), parseDocInput({ id: "a-second", text: b!, time: 1000 }), parseDocInput({ id: "m-third", text: c!, time: 1000 })], "reject");
    expect(results.map((r) => (r as { status: string }).status)).toEqual(["original", "duplicate", "duplicate"]);
    expect(results.slice(1).map((r) => (r as { duplicate_of: string }).duplicate_of)).toEqual(["z-first", "z-first"]);
  });

  it("the README states that rule: the first sent of a group wins, not the smallest id (audit 22a, F2: it still gave the rule before the twenty-sixth session)", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8").replace(/\s+/g, " ");
    const rule = /Decisions are taken in arrival order \(([^)]*)\)/.exec(readme)?.[1];
    expect(rule).toBe("the documents of one request by their time, then in the order sent: with no time field, the first sent of a group sent together is its original, whatever the ids");
  });

  it("a write the engine never got (refused before it was sent) leaves the window: a near-duplicate sent after it is the original", async () => {
    const { faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "unsent", lshKeyBudget: 0 });
    const [a, b] = variants(LONG_ZH, 2);
    faults.neverSent.add("x");
    const [x] = await service.index([parseDocInput({ id: "x", text: a!, time: 1000 })], "reject");
    expect(x).toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    const [y] = await service.index([parseDocInput({ id: "y", text: b!, time: 2000 })], "reject");
    expect(y).toMatchObject({ id: "y", status: "original" });
  });

  it("a request whose lookup fails early does not let a later near-duplicate decide before an earlier request still looking up", async () => {
    const { faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "order", lshKeyBudget: 0 });
    const [textA, textC] = variants(LONG_ZH, 2);
    // A's searches are held back; B's fail at once; C's go through.
    let releaseA!: () => void;
    const heldA = new Promise<void>((r) => (releaseA = r));
    let issuedA = 0;
    faults.searchGate = () => (issuedA++, heldA);
    const a = service.index([parseDocInput({ id: "a", text: textA!, time: 1000 })], "mark");
    // Every search A issues (its roots, the doc-values probe, its lookup) is held before the gate changes.
    for (let seen = -1; seen !== issuedA; ) {
      seen = issuedA;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(issuedA).toBeGreaterThan(0);
    faults.searchGate = () => Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "injected: the lookup failed"));
    const b = service.index([parseDocInput({ id: "b", text: RECIPE_EN, time: 2000 })], "mark");
    await expect(b).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    faults.searchGate = undefined;
    const c = service.index([parseDocInput({ id: "c", text: textC!, time: 3000 })], "mark");
    await new Promise((r) => setTimeout(r, 50)); // C's lookup is done; it must still wait for A
    releaseA();
    const [[ra], [rc]] = await Promise.all([a, c]);
    expect(ra).toMatchObject({ id: "a", status: "original" });
    expect(rc).toMatchObject({ id: "c", status: "duplicate", duplicate_of: "a" });
  });

  it("a bulk decided as a pipeline of chunks gives the answers it gives decided whole, near-duplicates across chunks included", async () => {
    // Out of time order on purpose: the earliest by time is the original whatever its place in the request.
    const texts = [...variants(LONG_ZH, 5), RECIPE_EN, MOM_A, MOM_B, ...englishVariants(NEWS_EN, 2), "", NEWS_EN];
    const docs = texts.map((text, i) => parseDocInput({ id: `d${i}`, text, time: 10_000 - ((i * 7) % texts.length) * 10 }));
    const run = async (pipelineChunk: number) => {
      const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: "chunks", pipelineChunk }));
      await service.ensureIndex();
      return (await service.index(docs, "mark")).map((r) => (r instanceof NeardupError ? `${r.code} ${r.field}` : `${r.id} ${r.status} ${r.duplicate_of} ${r.reason}`));
    };
    const whole = await run(1000);
    expect(whole.filter((r) => r.includes(" duplicate "))).toHaveLength(7); // 4 of LONG_ZH, MOM_B, 2 of NEWS_EN
    for (const chunk of [1, 2, 3, 5]) expect(await run(chunk)).toEqual(whole);
  });

  it("a chunk whose lookup fails answers its documents with the error; the other chunks are decided and written", async () => {
    const windowMs = resolveDedupOptions({}).windowMs;
    const { engine, faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "chunk-fail", pipelineChunk: 2, lshKeyBudget: 0 });
    const [a, b] = variants(LONG_ZH, 2);
    // Times 1000, 1000, 5000, 5000: the second chunk's lookups are the only ones whose window starts at 5000.
    const docs = [a!, RECIPE_EN, b!, NEWS_EN].map((text, i) => parseDocInput({ id: `d${i}`, text, time: i < 2 ? 1000 : 5000 }));
    faults.searchGate = (...args) => (JSON.stringify(args).includes(String(5000 - windowMs)) ? Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "injected: the second chunk's lookup failed")) : Promise.resolve());
    const results = await service.index(docs, "mark");
    expect(results[0]).toMatchObject({ id: "d0", status: "original", action: "indexed" });
    expect(results[1]).toMatchObject({ id: "d1", status: "original", action: "indexed" });
    expect(results[2]).toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect(results[3]).toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    faults.searchGate = undefined;
    await engine.refresh("chunk-fail");
    const stored = await engine.search<unknown>({ index: "chunk-fail", body: { size: 10, query: { match_all: {} } } });
    expect(stored.hits.hits.map((h) => h._id).sort()).toEqual(["d0", "d1"]);
    // Sent again, the failed documents are decided against what was written.
    const again = await service.index([docs[2]!, docs[3]!], "mark");
    expect(again[0]).toMatchObject({ id: "d2", status: "duplicate", duplicate_of: "d0" });
    expect(again[1]).toMatchObject({ id: "d3", status: "original" });
  });

  it.each(["mark", "skip", "reject"] as const)("a near-duplicate of an original the engine refused for its content is decided again, without it, and stored (policy %s)", async (policy) => {
    // The engine alone would store B; answering it "send again" made shippers that resend a whole batch loop for ever.
    const { engine, faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: `refused-${policy}` });
    const [a, b, c] = variants(LONG_ZH, 3);
    faults.refuse.add("a");
    const results = await service.index(
      [parseDocInput({ id: "a", text: a!, time: 1000 }), parseDocInput({ id: "b", text: b!, time: 2000 }), parseDocInput({ id: "c", text: c!, time: 3000 })],
      policy,
      ["items[0]", "items[1]", "items[2]"],
    );
    expect(results[0]).toMatchObject({ code: "INVALID_INPUT", status: 400, field: "items[0].fields.n" });
    expect(results[1]).toMatchObject({ id: "b", status: "original", action: "indexed", duplicate_of: null });
    expect(results[2]).toMatchObject({ id: "c", status: "duplicate", duplicate_of: "b", action: policy === "mark" ? "indexed" : policy === "skip" ? "skipped" : "rejected" });
    await engine.refresh(`refused-${policy}`);
    const stored = await engine.search<{ neardup: { status: string } }>({ index: `refused-${policy}`, body: { size: 10, query: { match_all: {} } } });
    expect(stored.hits.hits.map((h) => `${h._id} ${h._source!.neardup.status}`).sort()).toEqual(policy === "mark" ? ["b original", "c duplicate"] : ["b original"]);
  });

  it("a document decided again after its original's refusal is counted once in the checks and duplicates metrics", async () => {
    const registry = new Registry();
    const { faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "refused-metrics" }, createDedupMetrics(registry));
    const [a, b, c] = variants(LONG_ZH, 3);
    faults.refuse.add("a");
    await service.index([parseDocInput({ id: "a", text: a!, time: 1000 }), parseDocInput({ id: "b", text: b!, time: 2000 }), parseDocInput({ id: "c", text: c!, time: 3000 })], "mark");
    const values = async (name: string) => (await registry.getSingleMetric(name)!.get()).values.map((v) => `${JSON.stringify(v.labels)} ${v.value}`);
    // Three documents checked once each (a refused, b then an original, c its duplicate): one duplicate.
    expect(await values("neardup_checks_total")).toEqual(['{"operation":"index"} 3']);
    expect(await values("neardup_duplicates_found_total")).toEqual(['{"policy":"mark"} 1']);
  });

  it("a near-duplicate in a later request, waiting for an original the engine then refuses, is decided again and stored", async () => {
    const { faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "refused-later" });
    const [a, b] = variants(LONG_ZH, 2);
    faults.refuse.add("a");
    const release = faults.holdWrite("a");
    const first = service.index([parseDocInput({ id: "a", text: a!, time: 1000 })], "mark");
    await new Promise((r) => setTimeout(r, 100)); // A is decided; its write is held
    const second = service.index([parseDocInput({ id: "b", text: b!, time: 2000 })], "skip");
    await new Promise((r) => setTimeout(r, 100));
    release();
    expect((await first)[0]).toMatchObject({ code: "INVALID_INPUT" });
    expect((await second)[0]).toMatchObject({ id: "b", status: "original", action: "indexed" });
  });

  it("a near-duplicate of an original the engine could not store for now (429) is answered a retryable 503, and not stored", async () => {
    const { engine, faults, service } = await faultyDedupService(new MemoryEngine(), fp, { index: "overloaded" });
    const [a, b] = variants(LONG_ZH, 2);
    faults.overload.add("a");
    const results = await service.index([parseDocInput({ id: "a", text: a!, time: 1000 }), parseDocInput({ id: "b", text: b!, time: 2000 })], "mark");
    expect(results[0]).toMatchObject({ code: "ENGINE_UNAVAILABLE", status: 503 });
    expect(results[1]).toMatchObject({ code: "RETRY", status: 503 });
    await engine.refresh("overloaded");
    expect(await engine.get("overloaded", "b")).toBeUndefined();
  });

  it("a writer that lost its lease between deciding and writing writes nothing: its documents answer RETRY (multi-sidecar audit: a holder paused there wrote stale decisions, two originals)", async () => {
    const engine = new MemoryEngine();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "lease-lost" }));
    await service.ensureIndex();
    let checks = 0;
    // The lease holds when the chunk decides (the first check) and is gone when its write would go out.
    service.router = {
      forward: () => undefined,
      assertDeciding: () => {
        if (++checks > 1) throw new NeardupError("RETRY", "this sidecar lost the writer lease before writing");
      },
    };
    const [a, b] = variants(LONG_ZH, 2);
    const results = await service.index([parseDocInput({ id: "a", text: a!, time: 1000 }), parseDocInput({ id: "b", text: b!, time: 2000 })], "mark");
    expect(checks).toBeGreaterThan(1);
    expect(results[0]).toMatchObject({ code: "RETRY", status: 503 });
    expect(results[1]).toMatchObject({ code: "RETRY", status: 503 });
    await engine.refresh("lease-lost");
    expect(await engine.get("lease-lost", "a")).toBeUndefined();
    expect(await engine.get("lease-lost", "b")).toBeUndefined();
    // Nothing stays in flight: with the lease back, the same documents are decided again and stored.
    service.router = undefined;
    const again = await service.index([parseDocInput({ id: "a", text: a!, time: 1000 }), parseDocInput({ id: "b", text: b!, time: 2000 })], "mark");
    expect(again).toEqual([expect.objectContaining({ id: "a", status: "original" }), expect.objectContaining({ id: "b", status: "duplicate", duplicate_of: "a" })]);
  });

  it("a document whose time cannot be stored gets a 400 naming it, and leaves nothing behind that a later near-duplicate would wait for", async () => {
    const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: "bad-time" }));
    await service.ensureIndex();
    const [a, b] = variants(LONG_ZH, 2);
    // What a route would refuse, as a forwarded chunk or a library caller could still send it.
    for (const time of [9007199254740991, 1e300, -1, 1.5]) {
      const bad = { ...parseDocInput({ id: "bad", text: a! }), time };
      const [r] = await service.index([bad], "mark", ["items[0]"]);
      expect(r).toMatchObject({ code: "INVALID_INPUT", status: 400, field: "items[0].time" });
    }
    const later = await Promise.race([service.index([parseDocInput({ id: "b", text: b! })], "mark"), new Promise((r) => setTimeout(() => r("hung"), 5_000))]);
    expect(later).toEqual([expect.objectContaining({ id: "b", status: "original" })]);
  });

  it("a decision that throws mid-chunk leaves no window entry in flight: a later near-duplicate of an item decided before it does not wait for ever", async () => {
    // Any throw inside a decision (an engine read during it: a text, the look-again) fails the chunk after
    // earlier items entered the window. Those items are never written, so their entries must be settled as failed.
    const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: "decide-throws" }));
    await service.ensureIndex();
    const [a, b] = variants(LONG_ZH, 2);
    type Decides = { decide: (...args: unknown[]) => Promise<unknown> };
    const prototype = DedupService.prototype as unknown as Decides;
    const decide = prototype.decide;
    let calls = 0;
    const spy = vi.spyOn(prototype, "decide").mockImplementation(function (this: Decides, ...args: unknown[]) {
      if (++calls === 2) return Promise.reject(new NeardupError("ENGINE_UNAVAILABLE", "injected: a read inside the decision failed"));
      return decide.apply(this, args);
    });
    try {
      const failed = service.index([parseDocInput({ id: "a", text: a!, time: 1000 }), parseDocInput({ id: "c", text: RECIPE_EN, time: 2000 })], "mark");
      await expect(failed).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    } finally {
      spy.mockRestore();
    }
    expect(calls).toBe(2);
    expect(service.recentWindow.entries).toBe(0);
    const later = await Promise.race([service.index([parseDocInput({ id: "b", text: b!, time: 3000 })], "mark"), new Promise((r) => setTimeout(() => r("hung"), 5_000))]);
    expect(later).toEqual([expect.objectContaining({ id: "b", status: "original" })]);
  });

  it("gives the same answers with its texts analysed on a pool of worker threads", async () => {
    const docs = [...variants(LONG_ZH, 4), RECIPE_EN, "", MOM_A, MOM_B].map((text, i) => parseDocInput({ id: `d${i}`, text, time: 1000 + i }));
    const run = async (analyzer?: Analyzer) => {
      const service = new DedupService(new MemoryEngine(), fp, resolveDedupOptions({ index: "pool" }), undefined, undefined, analyzer);
      await service.ensureIndex();
      return (await service.index(docs, "mark")).map((r) => (r instanceof NeardupError ? `${r.code} ${r.field}` : `${r.status} ${r.duplicate_of} ${r.reason}`));
    };
    const pool = await createAnalyzer(fp, 2);
    try {
      expect(pool.threads).toBe(2);
      const pooled = await run(pool);
      expect(pooled).toEqual(await run());
      expect(pooled.filter((r) => r.startsWith("duplicate"))).toHaveLength(4);
    } finally {
      await pool.close();
    }
  });

  it("holds sketches in the recent-writes window, not analyses: a 2,500-character text costs a few KB, and its near-duplicate is still found from it", async () => {
    const engine = new MemoryEngine();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "sketches" }));
    await service.ensureIndex();
    const long = (LONG_ZH + RECIPE_EN).repeat(3).slice(0, 2500);
    await service.index([parseDocInput({ id: "a", text: long })], "mark");
    expect(service.recentWindow.entries).toBe(1);
    expect(service.recentWindow.bytes).toBeLessThan(16_000); // a full analysis of this text is about 30 KB
    const [b] = await service.index([parseDocInput({ id: "b", text: long.replace("。", "！") })], "mark"); // not refreshed: only the window can show a
    expect(b).toMatchObject({ status: "duplicate", duplicate_of: "a" });
  });

  it("adds its fields to an index created by another writer between its check and its create (the proxy's pass-through auto-create raced it)", async () => {
    const engine = new MemoryEngine();
    await engine.createIndex("raced"); // by the engine, for another writer's document
    engine.indexExists = () => Promise.resolve(false); // as this service's check saw it, a moment before
    const mapped: string[] = [];
    (engine as unknown as { putMapping: (index: string, mappings: { properties: Record<string, unknown> }) => Promise<void> }).putMapping = (index, mappings) => {
      mapped.push(`${index}:${Object.keys(mappings.properties).join(",")}`);
      return Promise.resolve();
    };
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "raced" }));
    await service.ensureIndex();
    expect(mapped).toEqual(["raced:neardup"]);
  });

  it("refuses an index whose refresh interval is not shorter than the recent-writes window", async () => {
    const engine = new MemoryEngine();
    await engine.createIndex("slow-refresh");
    engine.indices.get("slow-refresh")!.refreshMs = 30_000;
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "slow-refresh", recentWindowMs: 30_000 }));
    await expect(service.ensureIndex()).rejects.toMatchObject({ code: "INVALID_CONFIG", field: "recentWindowMs" });
  });
});
