/**
 * The record veto against the real engines (core record.ts): a log line of one template about another event
 * is an original while its near twin is in the engine (a second sidecar, whose recent-writes window is
 * empty, reads it from the engine's doc values: sketch format 3), and the same event logged again is its
 * duplicate. Through the API's check too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";

const FIRST = "2024-12-28T04:36:57.342Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins";
const OTHER_USER = "2024-12-28T04:37:17.203Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=postgres";
const AGAIN = "2024-12-28T04:39:02.911Z ERROR [order-service] Payment failed for order 4381108153: card declined (code 301), user=jenkins";

describe.each(engineTargets())("log records on $kind $version", (target) => {
  let engine: Engine;
  const index = uniqueIndex("neardup-it-records");

  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    await engine.deleteIndex(index);
    await engine.close();
  });

  it("another event is an original and the same event again a duplicate, read from the engine", async () => {
    const fp = await sharedFingerprinter();
    const now = Date.now();
    const doc = (id: string, text: string, dt: number) => ({ id, text, time: now + dt, idGiven: true, fields: undefined });
    const writer = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await writer.ensureIndex();
    expect(await writer.index([doc("first", FIRST, 0)], "skip")).toMatchObject([{ status: "original" }]);
    writer.stop();
    await engine.refresh(index);
    const second = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await second.ensureIndex();
    expect(second.recentWindow.entries).toBe(0);
    const check = await second.check(OTHER_USER, { time: now + 20_000 });
    expect(check).toMatchObject({ status: "original", candidates: 1, matches_total: 0 });
    const [other, again] = await second.index([doc("other", OTHER_USER, 20_000), doc("again", AGAIN, 125_000)], "skip");
    expect(other).toMatchObject({ status: "original", action: "indexed" });
    expect(again).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: "first" });
    second.stop();
    const stored = await engine.get<{ neardup: { sketch: string } }>(index, "first");
    expect(Buffer.from(stored!.neardup.sketch, "base64")[0]).toBe(3);
  });
});
