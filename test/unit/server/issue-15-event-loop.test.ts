/**
 * Issue 15: no request holds the event loop. The worst case for the re-rank is
 * a lookup whose every candidate needs the edit rule at its largest: a
 * 4,999-character text against ~6,600-character candidates that share its
 * LSH keys but not its simhash (so the simhash rule cannot decide), with no
 * common prefix or suffix (so edit distance runs over the whole texts).
 * 150 of them are about a second of comparisons.
 *
 * The measure is structural and relative, never an absolute time: a ticker
 * (one `setImmediate` after another) counts the event-loop turns taken while
 * the request is in flight and the longest gap between two of them, and
 * `/livez` is asked again and again over HTTP meanwhile. Before the re-rank
 * yielded, the comparisons were one synchronous block: the longest gap was
 * almost the whole request and `/livez` was answered once or twice.
 */
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import { decide, DEFAULT_VERDICT_OPTIONS, EDIT_MAX_CELLS, type VerdictOptions } from "../../../src/core/verdict.js";
import { compareSketches, sketchOf } from "../../../src/core/sketch.js";
import { AnalysisPrefetch } from "../../../src/server/prefetch.js";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { documentSource } from "../../../src/service/documents.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { createOffloadingAnalyzer, type OffloadingAnalyzer } from "../../../src/workers/offload.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { rng } from "../index/random.js";

const CANDIDATES = 150;
const INDEX = "event-loop";

/** `n` characters of random lowercase words from a fixed vocabulary (seeded). */
function words(seed: number, n: number): string {
  const draw = rng(seed);
  const next = () => draw() / 4294967296;
  const syll = ["ka", "lo", "mi", "ter", "sun", "vel", "dra", "po", "quin", "zor", "bel", "na", "rix", "to", "fen", "gu"];
  let out = "";
  while (out.length < n) {
    const len = 1 + Math.floor(next() * 3);
    let w = "";
    for (let i = 0; i < len; i++) w += syll[Math.floor(next() * syll.length)];
    out += w + " ";
  }
  return out.slice(0, n);
}

/** What the event loop did while `work` ran: turns taken, longest gap between turns, total time. */
async function watchLoop<T>(work: () => Promise<T>): Promise<{ result: T; turns: number; maxGapMs: number; totalMs: number }> {
  let turns = 0;
  let maxGapMs = 0;
  let last = performance.now();
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const start = performance.now();
  try {
    const result = await work();
    return { result, turns, maxGapMs: Math.max(maxGapMs, performance.now() - last), totalMs: performance.now() - start };
  } finally {
    running = false;
  }
}

describe("the event loop stays free during a worst-case re-rank (issue 15)", () => {
  let fp: Fingerprinter;
  let server: Server;
  let url: string;
  let query: string;
  let service: DedupService;
  let analyzer: OffloadingAnalyzer;

  beforeAll(async () => {
    fp = await createFingerprinter();
    query = words(1, 4999);
    const engine = new MemoryEngine();
    // As the server wires it (service.ts): texts over 3,000 characters are analysed in the worker.
    analyzer = createOffloadingAnalyzer(async () => fp, { workers: 1 });
    await analyzer.warm();
    const prefetch = new AnalysisPrefetch(analyzer);
    service = new DedupService(engine, prefetch.wrap(fp), resolveDedupOptions({ index: INDEX }), undefined, undefined, analyzer);
    await service.ensureIndex();
    // Each candidate: the query between two runs of other words, so no common prefix or suffix.
    const operations: Record<string, unknown>[] = [];
    for (let i = 0; i < CANDIDATES; i++) {
      const text = `${words(1000 + i, 800)} ${query} ${words(5000 + i, 800)}`;
      const doc = parseDocInput({ id: `c${i}`, text, time: Date.now() - 3_600_000 + i });
      operations.push({ index: { _index: INDEX, _id: doc.id } }, documentSource("text", doc, fp.analyze(text), { status: "original" }));
    }
    await engine.bulk(operations);
    await engine.refresh(INDEX);
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, prefetch, analyzer, service: () => service });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    if (server) await new Promise((resolve) => server.close(resolve));
    await analyzer?.close();
  });

  it("the candidates really are the worst case: each needs the edit rule over the whole texts", () => {
    const q = fp.analyze(query);
    const c = fp.analyze(`${words(1000, 800)} ${query} ${words(5000, 800)}`);
    const verdict = decide(q, c);
    expect(verdict.bucket).toBe("long");
    expect(verdict.distance).toBeGreaterThan(3); // the simhash rule cannot decide
    expect(verdict.editSimilarity).not.toBeNull(); // so edit distance was computed
    expect(c.normalized[0]).not.toBe(q.normalized[0]);
    expect(c.normalized.at(-1)).not.toBe(q.normalized.at(-1));
  });

  /** Runs `request` while asking /livez over and over; what the loop and /livez did meanwhile. */
  async function underLoad(request: () => Promise<Response>) {
    let livez = 0;
    let done = false;
    const prober = (async () => {
      while (!done) {
        const res = await fetch(`${url}/livez`);
        await res.arrayBuffer();
        if (!done) livez++;
      }
    })();
    const watched = await watchLoop(async () => {
      const res = await request();
      const body = (await res.json()) as Record<string, unknown>;
      done = true;
      return { status: res.status, body };
    });
    await prober;
    return { ...watched, livez };
  }

  function expectResponsive(run: { turns: number; maxGapMs: number; totalMs: number; livez: number }, what: string): void {
    const detail = `${what}: ${run.turns} turns, longest gap ${run.maxGapMs.toFixed(1)} ms of ${run.totalMs.toFixed(0)} ms, /livez answered ${run.livez} times`;
    console.info(`[neardup] ${detail}`);
    // A synchronous re-rank is one gap of nearly the whole request (0.85-0.9 of it, measured);
    // sliced, the longest gap is the candidate fetch or one slice plus one comparison (0.06-0.12,
    // measured at load 4-9 on 2 cores), and under a CI run's load a pause of 0.2-0.4 (GC, or the
    // process not scheduled: 330 ms of an 857 ms bulk, 2026-12-04; 294 ms of 2,144 in a CI run of
    // 2026-12-07). Three quarters of the request leaves room for a pause of twice that and still fails a
    // synchronous re-rank, which /livez answered only once or twice (below) fails as well.
    expect(run.maxGapMs, detail).toBeLessThan(run.totalMs * 0.75);
    expect(run.livez, detail).toBeGreaterThanOrEqual(10);
  }

  it("/v1/check: /livez keeps answering while every candidate needs the edit rule", async () => {
    const run = await underLoad(() => fetch(`${url}/v1/check`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text: query }) }));
    expect(run.result.status).toBe(200);
    expect(run.result.body.candidates).toBe(CANDIDATES);
    expectResponsive(run, "check");
  }, 120_000);

  it("ingest (/v1/documents/_bulk): the decisions yield too, across the documents of a bulk", async () => {
    // New texts of the query's length (the long bucket, within the edit rule's length ratio of every candidate).
    // A write's decision stops at the earliest duplicate (c0, which only the edit rule over the whole texts
    // finds), so each text costs one such comparison; 36 of them make the decisions the bulk's bulk (with 12 the
    // rest of the request had become so cheap that one pause under CI load was a third of it).
    const docs = Array.from({ length: 36 }, (_, i) => 1000 + i * 100).map((at, i) => ({ id: `q${i}`, text: `${query.slice(0, at)}zq${query.slice(at + 2)}`, time: Date.now() - 60_000 + i }));
    const run = await underLoad(() => fetch(`${url}/v1/documents/_bulk`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(docs) }));
    expect(run.result.status).toBe(200);
    expect(run.result.body.errors, JSON.stringify(run.result.body).slice(0, 500)).toBe(false);
    expectResponsive(run, "bulk");
  }, 120_000);
});

describe("the edit rule's budget holds on every path (issue 15)", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });
  // Custom rules with an edit rule for every length: only the budget bounds the cost.
  const everywhere: VerdictOptions = { buckets: [{ name: "all", maxLength: Infinity, searchRadius: 3, maxDistance: null, minCosine: null, minEditSimilarity: 0.5 }] };

  it("the default rules never compare a pair over the budget (the largest pair they compare is within it)", () => {
    const long = DEFAULT_VERDICT_OPTIONS.buckets.filter((b) => b.minEditSimilarity !== null && b.maxLength !== Infinity);
    for (const b of long) {
      const shorter = b.maxLength - 1;
      const longer = Math.floor(shorter / b.minEditSimilarity!);
      expect(shorter * longer, b.name).toBeLessThanOrEqual(EDIT_MAX_CELLS);
    }
    expect(DEFAULT_VERDICT_OPTIONS.buckets.find((b) => b.maxLength === Infinity)!.minEditSimilarity).toBeNull();
  });

  it("decide and the sketch compare skip edit distance for a pair over the budget, and compute it within", () => {
    const a = fp.analyze(words(7, 8000));
    const b = fp.analyze(words(7, 8000).replace(/ka/g, "ko"));
    expect(a.length * b.length).toBeGreaterThan(EDIT_MAX_CELLS);
    expect(decide(a, b, everywhere).editSimilarity).toBeNull();
    const sa = { simhash: a.simhash, sketch: sketchOf(a, Infinity) };
    const sb = { simhash: b.simhash, sketch: sketchOf(b, Infinity) };
    expect(compareSketches(sa, sb, everywhere)!.editSimilarity).toBeNull();
    const c = fp.analyze(words(7, 3000));
    const d = fp.analyze(words(7, 3000).replace(/ka/g, "ko"));
    expect(decide(c, d, everywhere).editSimilarity).not.toBeNull();
    expect(compareSketches({ simhash: c.simhash, sketch: sketchOf(c, Infinity) }, { simhash: d.simhash, sketch: sketchOf(d, Infinity) }, everywhere)!.editSimilarity).not.toBeNull();
  });

  it("decide skips edit distance when the lengths alone rule the edit rule out, as the sketch compare does", () => {
    const a = fp.analyze(words(8, 4000));
    const b = fp.analyze(words(8, 4000) + " " + words(9, 2000)); // 4,000 / 6,001 < 0.75
    const v = decide(a, b);
    expect(v.bucket).toBe("long");
    expect(v.editSimilarity).toBeNull();
    expect(compareSketches({ simhash: a.simhash, sketch: sketchOf(a, Infinity) }, { simhash: b.simhash, sketch: sketchOf(b, Infinity) }, DEFAULT_VERDICT_OPTIONS)!.editSimilarity).toBeNull();
  });
});
