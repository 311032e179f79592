/**
 * Writes among many documents of one template (log lines): a write's lookup
 * reads its candidates oldest first and stops at the first page that holds a
 * duplicate, so its cost does not grow with the template's documents, and it
 * still names the earliest duplicate. When the decision cannot take the
 * duplicates that page held (newer versions of them arrived meanwhile), it
 * looks again past them. Real engines.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import type { Engine } from "../../src/engine/index.js";
import { installTemplates } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { OLDEST_FIRST_PAGE, SHARED_PAGE, SHARED_PAGE_LOOKUPS } from "../../src/service/candidates/index.js";
import { createDedupMetrics } from "../../src/service/metrics.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { createRng } from "../../bench/quality/rng.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { countingFirstPages } from "../helpers/first-pages.js";
import { storeThroughEngine } from "../helpers/stored-window.js";

const line = (i: number) => `pam_unix(sshd:session): session opened for user alice by (uid=0) from 10.0.0.1 on pts/${i}`;
const rng = createRng(31);
const letters = "abcdefghijklmnopqrstuvwxyz";
const word = () => Array.from({ length: 3 + rng.int(7) }, () => letters[rng.int(letters.length)]).join("");
/** A text unlike the template and unlike each other. */
const unrelated = () => Array.from({ length: 14 }, word).join(" ");

async function hitsRead(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric("neardup_engine_hits_per_lookup")!.get();
  return (metric.values as { metricName?: string; value: number }[]).find((v) => v.metricName === "neardup_engine_hits_per_lookup_sum")?.value ?? 0;
}

describe.each(engineTargets())("writes among many documents of one template on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-templated");
  const registry = new Registry();
  let service: DedupService;
  const start = Date.now() - 3600_000;
  const COUNT = 600;

  beforeAll(async () => {
    engine = await connectTarget(target);
    await installTemplates(engine);
    const fingerprinter = await sharedFingerprinter();
    // The premise: the template's lines are near-duplicates of each other, the unrelated texts are not.
    expect(fingerprinter.compare(line(0), line(COUNT - 1)).duplicate).toBe(true);
    expect(fingerprinter.compare(line(0), unrelated()).duplicate).toBe(false);
    service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index, recentWindowMs: 1001 }), createDedupMetrics(registry));
    await service.ensureIndex();
    await storeThroughEngine(service, engine, index, Array.from({ length: COUNT }, (_, i) => line(i)), start, 200);
  }, 600_000);
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("reads one short page, oldest first, and names the earliest duplicate", async () => {
    const before = await hitsRead(registry);
    const [result] = await service.index([{ id: "late", idGiven: true, text: line(COUNT + 7), time: start + COUNT + 7, fields: undefined }], "mark");
    if (result instanceof Error) throw result;
    expect(result.status).toBe("duplicate");
    expect(result.duplicate_of).toBe("d0");
    const read = (await hitsRead(registry)) - before;
    expect(read).toBeGreaterThan(0);
    // All 600 documents match its keys; reading them all was quadratic ingest for log lines.
    expect(read).toBeLessThanOrEqual(OLDEST_FIRST_PAGE);
  }, 120_000);

  it("a bulk of the template's lines shares its first pages: a few searches, each line named a duplicate of the earliest", async () => {
    // Every sorted first page the service asks, by size: a write's lookup alone (OLDEST_FIRST_PAGE) or shared (SHARED_PAGE).
    const { engine: counting, sizes } = countingFirstPages(engine);
    const fingerprinter = await sharedFingerprinter();
    const shared = new DedupService(counting, fingerprinter, resolveDedupOptions({ index, recentWindowMs: 1001 }), createDedupMetrics(new Registry()));
    // A service that has seen a wide lookup (as a running one among log lines has): its bulk's lookups are not asked speculatively in one group.
    await shared.index([{ id: "warm", idGiven: true, text: line(COUNT + 100), time: start + COUNT + 100, fields: undefined }], "mark");
    sizes.length = 0;
    const lines = Array.from({ length: 48 }, (_, k) => ({ id: `bulk-${k}`, idGiven: true, text: line(COUNT + 200 + k), time: start + COUNT + 200 + k, fields: undefined }));
    const results = await shared.index(lines, "mark");
    for (const r of results) {
      if (r instanceof Error) throw r;
      expect(r).toMatchObject({ status: "duplicate", duplicate_of: "d0" });
    }
    // 48 lookups alone would be 48 sorted searches; shared, three pages of SHARED_PAGE hits settle them.
    expect(sizes.filter((n) => n === SHARED_PAGE)).toHaveLength(48 / SHARED_PAGE_LOOKUPS);
    expect(sizes.filter((n) => n !== SHARED_PAGE)).toEqual([]);
  }, 120_000);

  it("looks past the page it stopped at when the decision cannot take that page's duplicates", async () => {
    // One bulk: the oldest 70 documents get new, unrelated texts, then a new line of the template. Its lookup,
    // asked before those writes, stops at its first page (d0..d63, all duplicates); the decision, taken after
    // them, must not take any of those (they are no longer the template's), so it must look past the page:
    // d70 onwards are still the template's lines.
    // The write of the test before leaves the recent-writes window first, so that the lookup reads it from the engine (past the first page).
    await new Promise((r) => setTimeout(r, 1100));
    const rewrites = Array.from({ length: 70 }, (_, k) => ({ id: `d${k}`, idGiven: true, text: unrelated(), time: start + k, fields: undefined }));
    const late = { id: "after-rewrites", idGiven: true, text: line(COUNT + 11), time: start + COUNT + 11, fields: undefined };
    const results = await service.index([...rewrites, late], "mark");
    const last = results[results.length - 1]!;
    if (last instanceof Error) throw last;
    expect(last.status).toBe("duplicate");
    // d70's stored root is d0 (clusters keep their root, docs/dedup.md), so the answer names d0 through it.
    expect(last.duplicate_of).toBe("d0");
  }, 120_000);
});
