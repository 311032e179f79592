/**
 * Black-box audit 22b of the `_bulk` proxy, the rest of its findings, against the real engines: requests the
 * engine refuses left an index behind (F5), a write through an alias no rule matches into an index one does
 * (F8), and a `create` of an existing id under `skip` (F9). Each answer is compared with the engine's own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECIPE_EN, englishVariants, NEWS_EN } from "../fixtures/texts/near-duplicates.js";
import { authHeader, engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";
import { indexNamer, ndjson, startProxyFor, type ProxyHarness } from "../helpers/proxy.js";

type ItemBody = { status: number; _id?: string; result?: string; error?: Record<string, unknown> & { type: string; reason: string }; neardup?: { status: string } };
type Item = Record<string, ItemBody>;
interface BulkBody {
  errors: boolean;
  items: Item[];
  error?: { type: string; reason: string };
}

const only = (item: Item) => Object.values(item)[0]!;

describe.each(engineTargets())("_bulk proxy, audit 22b (F5, F8, F9), on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-a22r");
  const { name, created } = indexNamer(prefix);
  const [textA, textB] = englishVariants(RECIPE_EN, 2) as [string, string];

  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-mark-*:message,${prefix}-skip-*:message:skip`);
  });
  afterAll(async () => {
    for (const index of created) await h.engine.deleteIndex(index).catch(() => undefined);
    await h.close();
  });

  const post = async (url: string, path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url + path, { method: "POST", headers: { "content-type": "application/x-ndjson", ...authHeader(target), ...headers }, body });
    const text = await res.text();
    let json: BulkBody;
    try {
      json = JSON.parse(text) as BulkBody;
    } catch {
      json = {} as BulkBody;
    }
    return { status: res.status, text, body: json };
  };

  /** The same bulk through the proxy and straight to the engine, each into its own new index (the name differs in the answers). */
  const both = async (query: string, headers: Record<string, string> = {}, action: Record<string, unknown> = {}) => {
    const viaProxy = name("mark");
    const direct = name("mark");
    const body = (index: string) => ndjson({ index: { _index: index, _id: "1", ...action } }, { message: textA });
    const proxy = await post(h.url, `/_bulk${query}`, body(viaProxy), headers);
    const engine = await post(target.url, `/_bulk${query}`, body(direct), headers);
    return {
      proxy,
      engine,
      same: () => expect(proxy.text.replaceAll(viaProxy, "INDEX")).toBe(engine.text.replaceAll(direct, "INDEX")),
      /** Each side's items, the index names made the same. */
      items: () => [proxy, engine].map((side, k) => JSON.parse(JSON.stringify(side.body.items).replaceAll(k === 0 ? viaProxy : direct, "INDEX")) as Item[]),
      exists: async () => ({ proxy: await h.engine.indexExists(viaProxy), engine: await h.engine.indexExists(direct) }),
    };
  };

  it.each(["?refresh=maybe", "?timeout=abc", "?wait_for_active_shards=abc", "?foo=bar", "?require_alias=maybe", "?refresh=true&foo=bar&baz=1"])(
    "F5: a bulk the engine refuses for its query (%s) gets the engine's own answer, and no index is created (audit 22b: the proxy created the index first, and it stayed, empty)",
    async (query) => {
      const r = await both(query);
      expect(r.engine.status).toBe(400);
      expect(r.proxy.status).toBe(400);
      r.same();
      expect(await r.exists()).toEqual({ proxy: false, engine: false });
    },
  );

  it("F5: a parameter one engine knows and the other does not gets each engine's own answer (list_executed_pipelines: Elasticsearch takes it, OpenSearch refuses it)", async () => {
    const r = await both("?list_executed_pipelines=true");
    expect(r.proxy.status).toBe(r.engine.status);
    expect(r.proxy.status).toBe(target.kind === "elasticsearch" ? 200 : 400);
    if (r.proxy.status === 400) r.same();
    else expect(only(r.proxy.body.items[0]!).neardup).toMatchObject({ status: "original" });
    const exists = await r.exists();
    expect(exists.proxy).toBe(exists.engine);
  });

  it("F5: the Elasticsearch 8 clients' compatible-with=8 media type gets the engine's answer: OpenSearch's 406 with no index created, Elasticsearch's write deduplicated", async () => {
    const compat = "application/vnd.elasticsearch+x-ndjson; compatible-with=8";
    const r = await both("", { "content-type": compat, accept: compat });
    expect(r.proxy.status).toBe(r.engine.status);
    if (target.kind === "opensearch") {
      expect(r.proxy.status).toBe(406);
      r.same();
      expect(await r.exists()).toEqual({ proxy: false, engine: false });
    } else {
      expect(r.proxy.status).toBe(200);
      expect(only(r.proxy.body.items[0]!)).toMatchObject({ status: 201, neardup: { status: "original" } });
    }
    // The content type alone, without the Accept (Elasticsearch refuses that pair with a 400): refused by both, nothing created.
    const alone = await both("", { "content-type": compat });
    expect(alone.proxy.status).toBe(alone.engine.status);
    expect(alone.proxy.status).toBeGreaterThanOrEqual(400);
    alone.same();
    expect(await alone.exists()).toEqual({ proxy: false, engine: false });
  });

  it("F5: a bulk naming an ingest pipeline that does not exist gets the engine's per-item 400 and no index is created; an existing pipeline still writes through dedup", async () => {
    const r = await both("?pipeline=neardup-a22r-nonexistent");
    expect(r.engine.status).toBe(200);
    expect(r.proxy.status).toBe(200);
    const [proxyItems, engineItems] = r.items();
    expect(proxyItems).toEqual(engineItems);
    expect(only(r.proxy.body.items[0]!)).toMatchObject({ status: 400, error: { type: "illegal_argument_exception", reason: "pipeline with id [neardup-a22r-nonexistent] does not exist" } });
    expect(only(r.proxy.body.items[0]!).neardup).toBeUndefined();
    expect(await r.exists()).toEqual({ proxy: false, engine: false });

    // The item's own pipeline, the same.
    const own = await both("", {}, { pipeline: "neardup-a22r-nonexistent" });
    expect(only(own.proxy.body.items[0]!)).toMatchObject({ status: 400, error: { type: "illegal_argument_exception" } });
    expect(await own.exists()).toEqual({ proxy: false, engine: false });

    const pipeline = `${prefix}-empty`;
    await rawEngineRequest(target, "PUT", `/_ingest/pipeline/${pipeline}`, { processors: [] });
    try {
      const index = name("mark");
      const res = await post(h.url, `/_bulk?pipeline=${pipeline}&refresh=true`, ndjson({ index: { _index: index, _id: "1" } }, { message: textA }, { index: { _index: index, _id: "2" } }, { message: textB }));
      expect(res.status).toBe(200);
      expect(res.body.items.map((i) => only(i).neardup?.status)).toEqual(["original", "duplicate"]);
    } finally {
      await rawEngineRequest(target, "DELETE", `/_ingest/pipeline/${pipeline}`);
    }
  });

  it("F9: under skip, a create of an existing _id whose text is a near-duplicate gets the engine's own 409 version_conflict_engine_exception, not 200 noop; a new _id is still skipped (audit 22b: 200 noop)", async () => {
    const index = name("skip");
    const seeded = await post(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: index, _id: "0" } }, { message: textA }, { index: { _index: index, _id: "1" } }, { message: NEWS_EN }));
    expect(seeded.body.items.map((i) => only(i).status)).toEqual([201, 201]);
    const creates = ndjson(
      { create: { _index: index, _id: "1" } },
      { message: textB },
      { index: { _index: index, _id: "1", op_type: "create" } },
      { message: textB },
      { create: { _index: index, _id: "2" } },
      { message: textB },
    );
    const res = await post(h.url, "/_bulk", creates);
    expect(res.status).toBe(200);
    const [first, second, third] = res.body.items;
    // Straight to the engine, the existing id only (the new one would be written there).
    const direct = await post(target.url, "/_bulk", ndjson({ create: { _index: index, _id: "1" } }, { message: textB }, { index: { _index: index, _id: "1", op_type: "create" } }, { message: textB }));
    expect(first).toEqual(direct.body.items[0]);
    expect(second).toEqual(direct.body.items[1]);
    expect(only(first!)).toMatchObject({ status: 409, error: { type: "version_conflict_engine_exception", reason: "[1]: version conflict, document already exists (current version [1])" } });
    expect(only(third!)).toMatchObject({ status: 200, result: "noop", neardup: { status: "duplicate" } });
    expect(res.body.errors).toBe(true);
    expect(await h.engine.get<{ message: string }>(index, "1")).toMatchObject({ message: NEWS_EN });
    expect(await h.engine.get(index, "2")).toBeUndefined();
  });

  it("F8: a write through an alias no rule matches, into a write index a rule matches, is deduplicated and marked under the index's rule (audit 22b: written as sent, unmarked)", async () => {
    const index = name("mark");
    const alias = `${prefix}-alias-${created.length}`;
    await rawEngineRequest(target, "PUT", `/${index}`, { aliases: { [alias]: { is_write_index: true } } });
    const res = await post(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: alias, _id: "1" } }, { message: textA }, { index: { _index: alias, _id: "2" } }, { message: textB }));
    expect(res.status).toBe(200);
    expect(res.body.items.map((i) => only(i).status)).toEqual([201, 201]);
    expect(res.body.items.map((i) => only(i).neardup?.status)).toEqual(["original", "duplicate"]);
    expect(await h.engine.get<{ neardup?: { status: string } }>(index, "2")).toMatchObject({ neardup: { status: "duplicate" } });
    // Naming the index, the same service: a third near-duplicate is caught against those written through the alias.
    const named = await post(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "3" } }, { message: textB }));
    expect(only(named.body.items[0]!).neardup).toMatchObject({ status: "duplicate" });

    // An alias no rule matches over an index no rule matches still passes through untouched.
    const other = `${prefix}-plain-${created.length}`;
    created.push(other);
    const otherAlias = `${other}-alias`;
    await rawEngineRequest(target, "PUT", `/${other}`, { aliases: { [otherAlias]: { is_write_index: true } } });
    const plain = await post(h.url, "/_bulk", ndjson({ index: { _index: otherAlias, _id: "1" } }, { message: textA }));
    expect(only(plain.body.items[0]!)).toMatchObject({ status: 201 });
    expect(only(plain.body.items[0]!).neardup).toBeUndefined();
  });

  it("F5: a valid query still writes through dedup (refresh, timeout, wait_for_active_shards)", async () => {
    const index = name("mark");
    const res = await post(h.url, "/_bulk?refresh=wait_for&timeout=1m&wait_for_active_shards=1", ndjson({ index: { _index: index, _id: "1" } }, { message: NEWS_EN }));
    expect(res.status).toBe(200);
    expect(only(res.body.items[0]!)).toMatchObject({ status: 201, neardup: { status: "original" } });
  });
});
