/**
 * Input checks of the write and stats routes, found by a hostile-input audit.
 * `POST /v1/internal/documents` takes the writes other sidecars forward. A
 * client can call it directly too, so it checks each document as the public
 * routes do, and caps the items as `_bulk` does. Before: ids starting with
 * `_`, lone surrogates in ids, `fields` keys the engine refuses and fields
 * nested thousands deep went to the engine (or answered an item error naming
 * a serialization failure), and 20,000 similar documents were decided in one
 * request.
 */
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../../src/server/app.js";
import { createLogger } from "../../../src/server/logger.js";
import { createMetrics } from "../../../src/server/metrics.js";
import { Readiness } from "../../../src/server/readiness.js";
import { DedupService } from "../../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";
import { sharedFingerprinter } from "../../helpers/api.js";
import { toWire } from "../../../src/workers/wire.js";
import { englishVariants, NEWS_EN } from "../../fixtures/texts/near-duplicates.js";

describe("POST /v1/internal/documents", () => {
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    const service = new DedupService(new MemoryEngine(), await sharedFingerprinter(), resolveDedupOptions({ index: "peer", maxBulkItems: 3 }));
    await service.ensureIndex();
    const readiness = new Readiness();
    readiness.markReady();
    app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
  });

  const item = (over: Record<string, unknown> = {}) => ({ id: "a", id_given: true, text: "hello world, a forwarded document", time: 1_700_000_000_000, ...over });
  const post = (items: unknown[]) => request(app).post("/v1/internal/documents").send({ policy: "mark", items });

  it("decides what a sidecar forwards", async () => {
    const r = await post([item()]);
    expect(r.status).toBe(200);
    expect(r.body.items[0].result).toMatchObject({ id: "a", status: "original" });
  });

  it.each([
    ["an id starting with _", { id: "_x" }, "items[0].id"],
    ["a lone surrogate in the id", { id: "a\ud800" }, "items[0].id"],
    ["a fields key starting with _", { fields: { _x: 1 } }, "items[0].fields._x"],
    ["an empty fields key", { fields: { "": 1 } }, "items[0].fields"],
    ["arrays 3,000 deep in fields", { fields: { a: JSON.parse("[".repeat(3000) + "]".repeat(3000)) as unknown } }, "items[0].fields.a"],
    ["a time past year 9999", { time: 253402300800000 }, "items[0].time"],
  ])("refuses %s with a 400 naming the field", async (_what, over, field) => {
    const r = await post([item(over)]);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain(field);
  });

  it("refuses more items than NEARDUP_MAX_BULK_ITEMS with a 413", async () => {
    const r = await post([1, 2, 3, 4].map((n) => item({ id: `d${n}` })));
    expect(r.status).toBe(413);
    expect(JSON.stringify(r.body)).toContain("NEARDUP_MAX_BULK_ITEMS");
  });
});

describe("POST /v1/documents/_bulk as NDJSON, past the item limit", () => {
  it("answers 413 from counting lines, before parsing them", async () => {
    const service = new DedupService(new MemoryEngine(), await sharedFingerprinter(), resolveDedupOptions({ index: "ndjson-cap", maxBulkItems: 3 }));
    await service.ensureIndex();
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
    // The fourth line is not even JSON: it is never parsed, the count alone refuses the body.
    const body = ['{"text":"a"}', '{"text":"b"}', "", '{"text":"c"}', "not json", ...Array.from({ length: 100_000 }, () => '{"text":"x"}')].join("\n");
    const r = await request(app).post("/v1/documents/_bulk").set("content-type", "application/x-ndjson").send(body);
    expect(r.status).toBe(413);
    expect(JSON.stringify(r.body)).toContain("more than 3 documents");
    const ok = await request(app).post("/v1/documents/_bulk").set("content-type", "application/x-ndjson").send('{"text":"a"}\n\n{"text":"b"}\n');
    expect(ok.status).toBe(200);
  });

  it("names an unparseable line by its item index and its line number (blank lines are not items)", async () => {
    const service = new DedupService(new MemoryEngine(), await sharedFingerprinter(), resolveDedupOptions({ index: "ndjson-lines" }));
    await service.ensureIndex();
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
    const r = await request(app).post("/v1/documents/_bulk").set("content-type", "application/x-ndjson").send('{"text":"a"}\n\n{"text"\n{"text":"c"}\n');
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(3);
    expect(r.body.items[1].status).toBe(400);
    expect(r.body.items[1].error.field).toBe("items[1]");
    expect(r.body.items[1].error.message).toMatch(/^line 3 is not valid JSON/);
    expect(r.body.items[2].status).toBe(201);
  });
});

describe("write routes' query parameters", () => {
  it("refuse a parameter other than policy with a 400 naming it (it was silently ignored)", async () => {
    const service = new DedupService(new MemoryEngine(), await sharedFingerprinter(), resolveDedupOptions({ index: "query-params" }));
    await service.ensureIndex();
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
    for (const path of ["/v1/documents?refresh=true", "/v1/documents?policy[x]=skip", "/v1/documents/_bulk?polcy=skip"]) {
      const r = await request(app).post(path).send(path.includes("_bulk") ? [{ text: "a" }] : { text: "a" });
      expect(r.status, path).toBe(400);
      expect(r.body.error.message, path).toMatch(/is not a known parameter \(policy\)/);
    }
    expect((await request(app).post("/v1/documents?policy=skip").send({ text: "b" })).status).toBe(201);
  });
});

describe("GET /v1/stats top", () => {
  it("takes decimal digits only: 0x10, 1e1 and ' 5' are a 400 naming top (0x10 was read as 16)", async () => {
    const service = new DedupService(new MemoryEngine(), await sharedFingerprinter(), resolveDedupOptions({ index: "stats-top" }));
    const readiness = new Readiness();
    readiness.markReady();
    const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
    for (const top of ["0x10", "1e1", " 5", "5.0", "0", "101"]) {
      const r = await request(app).get("/v1/stats").query({ top });
      expect(r.status, top).toBe(400);
      expect(r.body.error.field, top).toBe("top");
    }
  });
});

describe("POST /v1/internal/documents with the sender's analyses (NEARDUP_PEER_ANALYSES)", () => {
  it("decides without analysing the texts again when the analyses fit, and analyses them when not; the same verdicts", async () => {
    const fp = await sharedFingerprinter();
    const texts = englishVariants(NEWS_EN, 3);
    const run = async (analysisOf: (k: number) => unknown) => {
      const analysed: string[] = [];
      const counting = { ...fp, analyze: (text: string, field?: string) => (analysed.push(text), fp.analyze(text, field)) };
      const service = new DedupService(new MemoryEngine(), counting, resolveDedupOptions({ index: "peer" }));
      await service.ensureIndex();
      const readiness = new Readiness();
      readiness.markReady();
      const app = createApp({ logger: createLogger("silent"), metrics: createMetrics({ defaultMetrics: false }), readiness, service: () => service });
      const items = texts.map((text, k) => ({ id: `v${k}`, id_given: true, text, time: 1_700_000_000_000 + k, analysis: analysisOf(k) }));
      const r = await request(app).post("/v1/internal/documents").send({ policy: "mark", items });
      expect(r.status).toBe(200);
      return { verdicts: (r.body.items as { result: { status: string; duplicate_of: string | null } }[]).map((i) => [i.result.status, i.result.duplicate_of]), analysed: analysed.filter((t) => texts.includes(t)) };
    };
    const wire = (k: number) => JSON.parse(JSON.stringify(toWire(fp.analyze(texts[k]!)))) as unknown;
    const fitting = await run(wire);
    expect(fitting.analysed).toEqual([]);
    const swapped = await run((k) => wire((k + 1) % texts.length));
    expect(swapped.analysed).toHaveLength(texts.length);
    expect(fitting.verdicts).toEqual(swapped.verdicts);
    expect(fitting.verdicts).toEqual([["original", null], ["duplicate", "v0"], ["duplicate", "v0"]]);
  });
});
