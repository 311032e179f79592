/**
 * The sheet veto against the real engines (core sheet.ts): a product page of one template about another
 * item is an original while its near twin is in the engine (a second sidecar, whose recent-writes window is
 * empty, reads the first page's fields from the engine's doc values: sketch format 4), and the same page
 * posted again reformatted is its duplicate. Through the service's check too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { SHEET_AGAIN, SHEET_FIRST, SHEET_OTHER_ITEM } from "../helpers/sheets.js";

describe.each(engineTargets())("sheets on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-sheets");

  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("another item is an original and the same page again a duplicate, read from the engine", async () => {
    const fp = await sharedFingerprinter();
    const now = Date.now();
    const doc = (id: string, text: string, dt: number) => ({ id, text, time: now + dt, idGiven: true, fields: undefined });
    const writer = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await writer.ensureIndex();
    expect(await writer.index([doc("first", SHEET_FIRST, 0)], "skip")).toMatchObject([{ status: "original" }]);
    writer.stop();
    await engine.refresh(index);
    const second = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await second.ensureIndex();
    expect(second.recentWindow.entries).toBe(0);
    const check = await second.check(SHEET_OTHER_ITEM, { time: now + 20_000 });
    expect(check).toMatchObject({ status: "original", candidates: 1, matches_total: 0 });
    const again = await second.check(SHEET_AGAIN, { time: now + 20_000 });
    expect(again).toMatchObject({ status: "duplicate", duplicate_of: "first" });
    const [other, copy] = await second.index([doc("other", SHEET_OTHER_ITEM, 20_000), doc("again", SHEET_AGAIN, 125_000)], "skip");
    expect(other).toMatchObject({ status: "original", action: "indexed" });
    expect(copy).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: "first" });
    second.stop();
    const stored = await engine.get<{ neardup: { sketch: string } }>(index, "first");
    expect(Buffer.from(stored!.neardup.sketch, "base64")[0]).toBe(4);
  });
});
