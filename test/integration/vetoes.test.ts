/**
 * The record and sheet vetoes against the real engines (core record.ts, sheet.ts): a log line of one template
 * about another event, and a product page of one template about another item, are originals while the near
 * twin is in the engine (a second sidecar, whose recent-writes window is empty, reads it from the engine's doc
 * values: sketch format 3, a record's text; format 4, a sheet's fields), and the same one again is its
 * duplicate. Through the service's check too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engine/index.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { resolveDedupOptions } from "../../src/service/options.js";
import { sharedFingerprinter } from "../helpers/api.js";
import { connectTarget, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { VETO_CASES } from "../helpers/vetoes.js";

describe.each(engineTargets())("the record and sheet vetoes on $kind $version", (target) => {
  let engine: Engine;
  const indices: string[] = [];

  beforeAll(async () => {
    engine = await connectTarget(target);
  });
  afterAll(async () => {
    for (const index of indices) await engine.deleteIndex(index);
    await engine.close();
  });

  it.each(VETO_CASES)("$name: the other one is an original and the same one again a duplicate, read from the engine", async ({ name, first, other, again, format }) => {
    const index = uniqueIndex(`neardup-it-veto-${name}`);
    indices.push(index);
    const fp = await sharedFingerprinter();
    const now = Date.now();
    const doc = (id: string, text: string, dt: number) => ({ id, text, time: now + dt, idGiven: true, fields: undefined });
    const writer = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await writer.ensureIndex();
    expect(await writer.index([doc("first", first, 0)], "skip")).toMatchObject([{ status: "original" }]);
    writer.stop();
    await engine.refresh(index);
    const second = new DedupService(engine, fp, resolveDedupOptions({ index }));
    await second.ensureIndex();
    expect(second.recentWindow.entries).toBe(0);
    expect(await second.check(other, { time: now + 20_000 })).toMatchObject({ status: "original", candidates: 1, matches_total: 0 });
    expect(await second.check(again, { time: now + 20_000 })).toMatchObject({ status: "duplicate", duplicate_of: "first" });
    const [o, a] = await second.index([doc("other", other, 20_000), doc("again", again, 125_000)], "skip");
    expect(o).toMatchObject({ status: "original", action: "indexed" });
    expect(a).toMatchObject({ status: "duplicate", action: "skipped", duplicate_of: "first" });
    second.stop();
    const stored = await engine.get<{ neardup: { sketch: string } }>(index, "first");
    expect(Buffer.from(stored!.neardup.sketch, "base64")[0]).toBe(format);
  });
});
