/**
 * Copies written in one bulk share their time and simhash, the whole of the old oldest-first sort's key: each
 * later copy's lookup read every one of them apart (a tie query of up to NEARDUP_MAX_CANDIDATES hits) before it
 * could settle, and one proxy bulk of 200,000 lines of 50 texts kept the engine busy for half an hour (audit 18,
 * F4). Read by (time, id), a lookup settles at its first duplicate. The verdicts stay those of a full read.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter, type Fingerprinter } from "../../../src/core/fingerprinter.js";
import type { SearchRequest, SearchResponse } from "../../../src/engine/types.js";
import { DedupService, type IndexResult } from "../../../src/service/dedup-service.js";
import { parseDocInput } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";
import { LONG_ZH, variants } from "../../fixtures/texts/near-duplicates.js";
import { MemoryEngine } from "../../helpers/memory-engine.js";

/** Counts the hits every search returns. */
class Counting extends MemoryEngine {
  hits = 0;
  override async search<T>(request: SearchRequest): Promise<SearchResponse<T>> {
    const response = await super.search<T>(request);
    this.hits += response.hits.hits.length;
    return response;
  }
}

describe("copies written in one bulk", () => {
  let fp: Fingerprinter;
  beforeAll(async () => {
    fp = await createFingerprinter();
  });

  it("a later copy's lookup settles at the first copy, not after reading them all; each is a duplicate of the first sent (audit 18, F4)", async () => {
    const engine = new Counting();
    const service = new DedupService(engine, fp, resolveDedupOptions({ index: "copies", recentWindowMs: 1100 }));
    await service.ensureIndex();
    const [text, edited] = variants(LONG_ZH, 2) as [string, string];
    // 600 copies in one bulk, all at one time, ids sent in an order that is not theirs: the first sent (c005) is the
    // original, and the lowest id (c000) one of its duplicates.
    const ids = Array.from({ length: 600 }, (_, i) => `c${String((i * 7 + 5) % 600).padStart(3, "0")}`);
    const first = await service.index(ids.map((id) => parseDocInput({ id, text, time: 1_000 })), "mark");
    expect((first as IndexResult[]).filter((r) => r.status === "original").map((r) => r.id)).toEqual([ids[0]]);
    // Shown by the engine and gone from the recent-writes window: the next lookups read the engine alone.
    await engine.refresh("copies");
    await engine.refresh("copies");
    for (let k = 0; k < 50 && service.recentWindow.entries > 0; k++) await new Promise((r) => setTimeout(r, 100));
    expect(service.recentWindow.entries).toBe(0);
    // A first later bulk: its lookups draw every copy (one grouped query), which tells the key statistics that
    // these keys are held by many documents; from then on writes' lookups read oldest first, and stop early.
    const drain = async () => {
      for (let k = 0; k < 50 && service.recentWindow.entries > 0; k++) await new Promise((r) => setTimeout(r, 100));
    };
    const later = async (from: number, time: number) => (await service.index(Array.from({ length: 40 }, (_, i) => parseDocInput({ id: `d${from + i}`, text: i % 2 ? text : edited, time })), "mark")) as IndexResult[];
    for (const r of await later(0, 2_000)) expect(r).toMatchObject({ status: "duplicate", duplicate_of: ids[0] });
    await engine.refresh("copies");
    await engine.refresh("copies");
    await drain();
    engine.hits = 0;
    for (const r of await later(40, 3_000)) expect(r).toMatchObject({ status: "duplicate", duplicate_of: ids[0] });
    // 40 lookups: a shared first page or a first page each, then the texts the edit rule needs, not 600 copies each.
    expect(engine.hits / 40).toBeLessThan(400); // about 70 on a quiet machine, 140 loaded; 1,500 when every copy was read
  });
});
