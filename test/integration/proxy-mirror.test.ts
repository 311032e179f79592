/**
 * The `_bulk` proxy's indices with the window mirror (NEARDUP_MIRROR_DOCS), on both engines: a near-duplicate
 * of a document deleted through the proxy, sent right after the delete, is stored as an original (under
 * `skip`, a lookup holding the deleted one would drop it); the mirror is told of the delete, so its polls
 * agree with the engine's count and it keeps answering (not told, it would start again and leave the
 * lookups to the engine); what is not deleted stays an original, read from the mirror.
 */
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEWS_EN, RECIPE_EN, englishVariants } from "../fixtures/texts/near-duplicates.js";
import { createDedupMetrics } from "../../src/service/metrics.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";
import { startProxyFor, type ProxyHarness } from "../helpers/proxy.js";

const lines = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join("\n") + "\n";

async function bulk(url: string, ndjson: string): Promise<Record<string, Record<string, unknown>>[]> {
  const res = await fetch(`${url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: ndjson });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Record<string, Record<string, unknown>>[] }).items;
}

describe.each(engineTargets())("_bulk proxy with the window mirror on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-it-pxmirror");
  const registry = new Registry();
  const hits = async () => Number((await registry.getSingleMetricAsString("neardup_mirror_hits_per_lookup")).match(/_count (\d+)/)?.[1] ?? 0);
  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-*:message:skip`, { dedup: { mirrorDocs: 10_000 }, metrics: createDedupMetrics(registry) });
  });
  afterAll(async () => {
    await h.engine.deleteIndex(`${prefix}-a`).catch(() => undefined);
    await h.close();
  });

  it("a delete through the proxy leaves the mirror at once: a near-duplicate of the deleted document sent right after is stored", async () => {
    const index = `${prefix}-a`;
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const [c, d] = englishVariants(NEWS_EN, 2);
    expect((await bulk(h.url, lines({ index: { _index: index, _id: "old" } }, { message: a }, { index: { _index: index, _id: "x" } }, { message: c }))).map((i) => i.index!.status)).toEqual([201, 201]);
    // The first bulk started the mirror's load; later writes' lookups, a second on, start polls that bring
    // "old" and "x" into it. Until the mirror answers a lookup (two fillers on an idle machine, more on a
    // loaded one: not a fixed time).
    for (let k = 0; k < 2 || ((await hits()) === 0 && k < 30); k++) {
      await new Promise((r) => setTimeout(r, 1_100));
      await bulk(h.url, lines({ index: { _index: index, _id: `filler${k}` } }, { message: `filler ${k} ${"unrelated words ".repeat(k + 1)}` }));
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(await hits()).toBeGreaterThan(0);
    const before = await hits();
    // The delete alone, then at once a near-duplicate of what it deleted: an original, from the mirror's lookup.
    expect((await bulk(h.url, lines({ delete: { _index: index, _id: "old" } })))[0]!.delete).toMatchObject({ status: 200, result: "deleted" });
    expect((await bulk(h.url, lines({ index: { _index: index, _id: "new" } }, { message: b })))[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    expect(await hits()).toBeGreaterThan(before);
    // Its next polls agree with the engine's count (told of the delete, it holds no ghost), so it keeps answering:
    // a poll starts when a lookup finds the view a second old.
    await new Promise((r) => setTimeout(r, 1_200));
    await bulk(h.url, lines({ index: { _index: index, _id: "later" } }, { message: "a later unrelated line" }));
    await new Promise((r) => setTimeout(r, 800));
    const after = await hits();
    // What is not deleted stays the original: a near-duplicate of "x" is skipped, and of "new" too.
    expect((await bulk(h.url, lines({ index: { _index: index, _id: "y" } }, { message: d })))[0]!.index).toMatchObject({ status: 200, result: "noop", neardup: { duplicate_of: "x" } });
    expect((await bulk(h.url, lines({ index: { _index: index, _id: "z" } }, { message: a })))[0]!.index).toMatchObject({ status: 200, result: "noop", neardup: { duplicate_of: "new" } });
    expect(await hits()).toBeGreaterThan(after);
  }, 120_000); // up to 30 fillers a second apart on a loaded machine
});
