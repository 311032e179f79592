/**
 * Audit 22b, F1 (the metadata-block finding): one index anywhere in the cluster with `index.blocks.metadata=true`
 * made every `_bulk` the proxy fingerprints fail (a 503 naming that other index; later, written as sent and
 * unchecked), because neardup asked `GET /_alias/<name>`, for which the engine checks the block of every index.
 * Its alias lookups now name the index (`GET /<name>/_alias/<name>`), so only a block on the index itself counts.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECIPE_EN, englishVariants } from "../fixtures/texts/near-duplicates.js";
import { startApi } from "../helpers/api.js";
import { authHeader, engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";
import { startProxyFor, type ProxyHarness } from "../helpers/proxy.js";
import { TARGET_TTL_MS } from "../../src/proxy/pool.js";

type Item = Record<string, { status: number; error?: { type: string; reason: string }; neardup?: { status: string; duplicate_of?: string; reason?: string } }>;
interface BulkBody {
  errors: boolean;
  items: Item[];
  error?: { type: string; reason: string };
}

const lines = (...objects: unknown[]) => objects.map((o) => JSON.stringify(o)).join("\n") + "\n";
const only = (item: Item) => Object.values(item)[0]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(engineTargets())("an unrelated index with a metadata block, on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-mdblock");
  // No rule matches it, and its name shares nothing with the indices written.
  const unrelated = uniqueIndex("neardup-unrelated-meta");
  const served = `${prefix}-mark-served`;
  const created: string[] = [unrelated, served];
  const [textA, textB, textC] = englishVariants(RECIPE_EN, 3) as [string, string, string];
  const block = (index: string, on: boolean) => rawEngineRequest(target, "PUT", `/${index}/_settings`, { "index.blocks.metadata": on });

  const bulk = async (body: string, path = "/_bulk?refresh=true") => {
    const res = await fetch(h.url + path, { method: "POST", headers: { "content-type": "application/x-ndjson", ...authHeader(target) }, body });
    return { status: res.status, body: (await res.json()) as BulkBody };
  };

  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-mark-*:message`);
    // An index the proxy served before the block: its alias lookup is made again once TARGET_TTL_MS has passed.
    const first = await bulk(lines({ index: { _index: served, _id: "a" } }, { message: textA }));
    expect(only(first.body.items[0]!)).toMatchObject({ status: 201, neardup: { status: "original" } });
    await rawEngineRequest(target, "PUT", `/${unrelated}`);
    await block(unrelated, true);
  });
  afterAll(async () => {
    // A metadata-blocked index cannot be deleted until the block is lifted.
    for (const index of created) await block(index, false).catch(() => undefined);
    for (const index of created) await h.engine.deleteIndex(index);
    await h.close();
  });

  it("a _bulk through the proxy into a new rule-matched index is deduplicated: one original, one duplicate (audit 22b: a whole-request 503 naming the unrelated index)", async () => {
    const index = `${prefix}-mark-new`;
    created.push(index);
    const res = await bulk(lines({ index: { _index: index, _id: "1" } }, { message: textA }, { index: { _index: index, _id: "2" } }, { message: textB }));
    expect(res.status).toBe(200);
    expect(res.body.error).toBeUndefined();
    const [a, b] = res.body.items.map(only);
    expect(a).toMatchObject({ status: 201, neardup: { status: "original" } });
    expect(b).toMatchObject({ status: 201, neardup: { status: "duplicate", duplicate_of: "1" } });
    const stored = await h.engine.get<{ neardup?: { status: string } }>(index, "2");
    expect(stored?.neardup).toMatchObject({ status: "duplicate" });
  });

  it("an index the proxy served before the block is still deduplicated after its alias lookup is made again", async () => {
    await sleep(TARGET_TTL_MS + 500);
    const res = await bulk(lines({ index: { _index: served, _id: "b" } }, { message: textB }));
    expect(res.status).toBe(200);
    expect(only(res.body.items[0]!)).toMatchObject({ status: 201, neardup: { status: "duplicate", duplicate_of: "a" } });
  }, 30_000);

  it("a metadata block on the written index itself gives the engine's own answer for its items, not a 503; the other index of the bulk is deduplicated", async () => {
    const blocked = `${prefix}-mark-blocked`;
    const healthy = `${prefix}-mark-healthy`;
    created.push(blocked, healthy);
    // Mapped before the block: the engine stores a document whose fields need no mapping change.
    await rawEngineRequest(target, "PUT", `/${blocked}`, { mappings: { properties: { message: { type: "text" } } } });
    await block(blocked, true);
    const res = await bulk(lines({ index: { _index: blocked, _id: "1" } }, { message: textA }, { index: { _index: healthy, _id: "1" } }, { message: textA }, { index: { _index: healthy, _id: "2" } }, { message: textC }));
    expect(res.status).toBe(200);
    const [mine, original, duplicate] = res.body.items.map(only);
    expect(mine).toMatchObject({ status: 201, neardup: { status: "unchecked" } });
    expect(mine!.neardup!.reason).toMatch(/index metadata/);
    expect(original).toMatchObject({ status: 201, neardup: { status: "original" } });
    expect(duplicate).toMatchObject({ status: 201, neardup: { status: "duplicate", duplicate_of: "1" } });
    // A document with a field the index has not mapped needs a mapping change, which the block refuses: the engine's item.
    const unmapped = await bulk(lines({ index: { _index: blocked, _id: "2" } }, { message: textB, extra: "a field not mapped yet" }));
    expect(unmapped.status).toBe(200);
    const direct = await fetch(`${target.url}/_bulk`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson", ...authHeader(target) },
      body: lines({ index: { _index: blocked, _id: "3" } }, { message: textB, other: "a field not mapped yet" }),
    });
    const engineItem = only(((await direct.json()) as BulkBody).items[0]!);
    expect(only(unmapped.body.items[0]!)).toMatchObject({ status: engineItem.status, error: { type: engineItem.error!.type } });
    expect(only(unmapped.body.items[0]!).neardup).toBeUndefined();
  });

  it("a metadata block set on an index the proxy serves gives the engine's own answer at once, not a per-item 502 'refused the credentials'", async () => {
    const index = `${prefix}-mark-blocked-later`;
    created.push(index);
    const first = await bulk(lines({ index: { _index: index, _id: "1" } }, { message: textA }));
    expect(only(first.body.items[0]!)).toMatchObject({ status: 201, neardup: { status: "original" } });
    await block(index, true);
    // Within TARGET_TTL_MS: the service is there; its field-mapping check skips the blocked index, and the set-up
    // it starts asks whether the index exists (HEAD: a 403 without a body, taken for a refused login).
    const res = await bulk(lines({ index: { _index: index, _id: "2" } }, { message: textB }));
    expect(res.status).toBe(200);
    const item = only(res.body.items[0]!);
    expect(item).toMatchObject({ status: 201, neardup: { status: "unchecked" } });
    expect(item.neardup!.reason).toMatch(/cluster_block_exception.*index metadata/);
  });

  it("POST /v1/documents of the HTTP API deduplicates, into an index and through a rollover alias", async () => {
    const api = await startApi(target);
    try {
      const post = (text: string, id: string) => request(api.app).post("/v1/documents").set("Content-Type", "application/json").send({ id, text });
      expect((await post(textA, "a")).body).toMatchObject({ id: "a", status: "original", action: "indexed" });
      const b = await post(textB, "b");
      expect(b.status).toBe(201);
      expect(b.body).toMatchObject({ id: "b", status: "duplicate", duplicate_of: "a" });
    } finally {
      await api.close();
    }
    const alias = `${prefix}-api-rollover`;
    const template = `${alias}-template`;
    await h.engine.putIndexTemplate(template, { index_patterns: [`${alias}-*`], composed_of: ["neardup"], priority: 500, template: { mappings: { properties: { text: { type: "text" } } } } });
    created.push(`${alias}-000001`);
    const rolling = await startApi(target, { index: alias, dedup: { rollover: true } });
    try {
      expect((await h.engine.aliasIndices(alias)).map((b) => b.index)).toEqual([`${alias}-000001`]);
      const post = (text: string, id: string) => request(rolling.app).post("/v1/documents").set("Content-Type", "application/json").send({ id, text });
      expect((await post(textA, "a")).body).toMatchObject({ id: "a", status: "original" });
      expect((await post(textB, "b")).body).toMatchObject({ id: "b", status: "duplicate", duplicate_of: "a" });
    } finally {
      await rolling.close();
      await h.engine.deleteIndexTemplate(template);
    }
  });
});
