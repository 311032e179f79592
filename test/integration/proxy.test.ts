/**
 * The `_bulk` proxy (issue 12) against the real engines, driven by the
 * official clients' bulk helpers and by hand-made bodies: verdicts per policy,
 * the engine's per-item shapes, gzip, update/delete in order, untouched
 * indices, malformed lines, passthrough of everything else.
 */
import { rawHttp } from "../helpers/raw-http.js";
import { deflateSync, gzipSync } from "node:zlib";
import { Client as ElasticClient } from "@elastic/elasticsearch";
import { Client as OpenSearchClient } from "@opensearch-project/opensearch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MOM_A, MOM_B, NEWS_EN, OTHER_ZH, RECIPE_EN, englishVariants } from "../fixtures/texts/near-duplicates.js";
import { engineTargets, uniqueIndex } from "../helpers/engines.js";
import { indexNamer, ndjson, startProxyFor, type ProxyHarness } from "../helpers/proxy.js";
import { resolveDateMathName } from "../../src/proxy/date-math.js";
import type { EngineTarget } from "../helpers/engine-targets.js";

interface Drop {
  status: number;
  error: { type: string; reason: string } | null;
  document: Record<string, unknown>;
}

/** The official client of the engine behind the proxy, pointed at the proxy; `helpers.bulk` over `docs`. */
async function helperBulk(target: EngineTarget, url: string, index: string, docs: Record<string, unknown>[]) {
  const drops: Drop[] = [];
  const successes: Record<string, Record<string, unknown>>[] = [];
  const common = {
    datasource: docs,
    onDocument: (doc: Record<string, unknown>) => ({ index: { _index: index, _id: String(doc.id) } }),
    onDrop: (d: unknown) => drops.push(d as Drop),
    flushBytes: 1_000_000,
    concurrency: 1,
    retries: 0,
  };
  if (target.kind === "elasticsearch") {
    const client = new ElasticClient({ node: url, maxRetries: 0 });
    try {
      // onSuccess (per-item results) exists in the Elasticsearch helper only.
      const onSuccess = ({ result }: { result: unknown }) => successes.push(result as Record<string, Record<string, unknown>>);
      const stats = await client.helpers.bulk({ ...common, onSuccess } as never);
      return { stats, drops, successes };
    } finally {
      await client.close();
    }
  }
  const client = new OpenSearchClient({ node: url, maxRetries: 0 });
  try {
    const stats = await client.helpers.bulk(common as never);
    return { stats, drops, successes };
  } finally {
    await client.close();
  }
}

async function rawBulk(url: string, path: string, ndjson: string, init: { gzip?: boolean; headers?: Record<string, string> } = {}) {
  const body = init.gzip ? gzipSync(ndjson) : Buffer.from(ndjson);
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson", ...(init.gzip ? { "content-encoding": "gzip" } : {}), ...init.headers },
    body,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { errors: boolean; items: Record<string, Record<string, unknown>>[]; error?: { type: string } } };
}


describe.each(engineTargets())("_bulk proxy on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-proxy");
  const { name, created } = indexNamer(prefix);

  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-mark-*:message,${prefix}-skip-*:message:skip,${prefix}-reject-*:message:reject`);
  });
  afterAll(async () => {
    for (const index of created) await h.engine.deleteIndex(index);
    await h.close();
  });

  /** PUT a JSON body to the engine itself (index set-up the proxy is not asked for). */
  const putJson = (path: string, body: unknown) => fetch(`${target.url}${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  const stream = () => {
    const [a, b, c] = englishVariants(RECIPE_EN, 3);
    return [
      { id: "mom-a", message: MOM_A, host: "web-1", "@timestamp": "2026-12-01T10:00:00.000Z" },
      { id: "news", message: NEWS_EN, host: "web-2", "@timestamp": "2026-12-01T10:00:01.000Z" },
      { id: "recipe-a", message: a, host: "web-1", "@timestamp": "2026-12-01T10:00:02.000Z" },
      { id: "mom-b", message: MOM_B, host: "web-3", "@timestamp": "2026-12-01T10:00:03.000Z" },
      { id: "recipe-b", message: b, host: "web-2", "@timestamp": "2026-12-01T10:00:04.000Z" },
      { id: "other", message: OTHER_ZH, host: "web-1", "@timestamp": "2026-12-01T10:00:05.000Z" },
      { id: "recipe-c", message: c, host: "web-3", "@timestamp": "2026-12-01T10:00:06.000Z" },
    ];
  };
  const duplicates = new Map([
    ["mom-b", "mom-a"],
    ["recipe-b", "recipe-a"],
    ["recipe-c", "recipe-a"],
  ]);

  it("mark: the client's helper sees every item written; near-duplicates carry the verdict; the source is kept as sent", async () => {
    const index = name("mark");
    const { stats, drops, successes } = await helperBulk(target, h.url, index, stream());
    expect(drops).toEqual([]);
    expect(stats).toMatchObject({ total: 7, successful: 7, failed: 0 });
    expect(successes).toHaveLength(target.kind === "elasticsearch" ? 7 : 0);
    for (const result of successes) {
      const item = result.index!;
      expect(item.status).toBe(201);
      expect(item.result).toBe("created");
      expect(item._version).toBe(1); // the engine's own item
      const expected = duplicates.get(String(item._id));
      expect(item.neardup).toMatchObject(expected ? { status: "duplicate", duplicate_of: expected, action: "indexed" } : { status: "original", action: "indexed" });
    }
    await h.engine.refresh(index);
    for (const doc of stream()) {
      const stored = await h.engine.get<Record<string, unknown> & { neardup: Record<string, unknown> }>(index, doc.id);
      const { neardup, ...rest } = stored!;
      expect(rest).toEqual(doc);
      const expected = duplicates.get(doc.id);
      expect(neardup).toMatchObject(expected ? { status: "duplicate", duplicate_of: expected } : { status: "original" });
      expect(neardup.simhash).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it("mark writes the client's source bytes as sent (plus neardup): big integers, 1.0 and spacing survive", async () => {
    const index = name("mark");
    const source = `{"message": ${JSON.stringify(NEWS_EN)}, "big":1234567890123456789,"f":1.0, "n" : [1.50, 2e3]}`;
    const res = await rawBulk(h.url, "/_bulk?refresh=true", `${JSON.stringify({ index: { _index: index, _id: "raw" } })}\n${source}\n`);
    expect(res.body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    const got = await fetch(`${target.url}/${index}/_doc/raw`).then((r) => r.text());
    // The engine returns _source as stored; written again from a parsed object it read 1234567890123456800 and 1.
    expect(got).toContain(`"big":1234567890123456789,"f":1.0, "n" : [1.50, 2e3]}`);
    expect(got).toMatch(/"_source":\{"neardup":\{"/);
    const mapping = await fetch(`${target.url}/${index}/_mapping`).then((r) => r.json() as Promise<Record<string, { mappings: { properties: Record<string, { type: string }> } }>>);
    expect(mapping[index]!.mappings.properties.f!.type).toBe("float"); // 1 would have made it a long
  });

  it("skip: near-duplicates answer 200 noop and are not written; the helper counts them as successes", async () => {
    const index = name("skip");
    const { stats, drops, successes } = await helperBulk(target, h.url, index, stream());
    expect(drops).toEqual([]);
    expect(stats).toMatchObject({ total: 7, successful: 7, failed: 0 });
    const byId = new Map(successes.map((r) => [String(r.index!._id), r.index!]));
    for (const [id, original] of target.kind === "elasticsearch" ? duplicates : []) {
      expect(byId.get(id)).toMatchObject({ status: 200, result: "noop", neardup: { status: "duplicate", action: "skipped", duplicate_of: original } });
    }
    await h.engine.refresh(index);
    for (const doc of stream()) expect(await h.engine.get(index, doc.id), doc.id).toEqual(duplicates.has(doc.id) ? undefined : expect.anything());
  });

  it("reject: near-duplicates are dropped by the helper with a 409 naming neardup and the original", async () => {
    const index = name("reject");
    const { stats, drops } = await helperBulk(target, h.url, index, stream());
    expect(stats).toMatchObject({ total: 7, successful: 4, failed: 3 });
    expect(new Map(drops.map((d) => [String(d.document.id), d]))).toEqual(
      new Map(
        [...duplicates].map(([id, original]) => [
          id,
          expect.objectContaining({ status: 409, error: expect.objectContaining({ type: "neardup_duplicate_exception", duplicate_of: original, reason: expect.stringContaining(`[${original}]`) }) }),
        ]),
      ),
    );
    await h.engine.refresh(index);
    for (const id of duplicates.keys()) expect(await h.engine.get(index, id)).toBeUndefined();
  });

  it("an _id or _index given as a number or a boolean is read as its text, as the engine does, and the other items of the request are still deduplicated (hostile-input audit: reject let a near-duplicate through)", async () => {
    const index = name("reject");
    const [a, b] = englishVariants(RECIPE_EN, 2);
    expect((await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "a" } }, { message: a }))).body.items[0]!.index!.status).toBe(201);
    const res = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "b" } }, { message: b }, '{"delete":{"_index":"' + index + '","_id":true}}', '{"index":{"_index":"' + index + '","_id":1e400}}', { message: OTHER_ZH }));
    expect(res.body.items[0]!.index).toMatchObject({ status: 409, error: { type: "neardup_duplicate_exception" } });
    expect(res.body.items[1]!.delete).toMatchObject({ _id: "true", status: 404 });
    expect(res.body.items[2]!.index).toMatchObject({ _id: "1e400", status: 201, neardup: { status: "original" } });
    await h.engine.refresh(index);
    expect(await h.engine.get(index, "b")).toBeUndefined();
    expect(await h.engine.get(index, "1e400")).toMatchObject({ message: OTHER_ZH, neardup: { status: "original" } });
  });

  it.each([
    ["a number", 12345],
    ["an object", { text: "structured" }],
  ])("the first bulk into a new index, texts then a text field holding %s, is stored as the engine stores it: the item that passes through goes after the texts before it (hostile-input audit: it went first, mapped the field, and the texts were refused)", async (_kind, odd) => {
    const index = name("mark");
    const direct = `${index}-direct`;
    created.push(direct);
    const body = (into: string) => ndjson({ index: { _index: into, _id: "t1" } }, { message: NEWS_EN }, { index: { _index: into, _id: "t2" } }, { message: OTHER_ZH }, { index: { _index: into, _id: "n1" } }, { message: odd });
    const viaEngine = await rawBulk(target.url, "/_bulk", body(direct));
    const viaProxy = await rawBulk(h.url, "/_bulk", body(index));
    const statuses = (r: typeof viaProxy) => r.body.items.map((i) => i.index!.status);
    expect(statuses(viaProxy)).toEqual(statuses(viaEngine));
    expect(statuses(viaProxy).slice(0, 2)).toEqual([201, 201]);
    expect(viaProxy.body.items[0]!.index).toMatchObject({ neardup: { status: "original" } });
    const mapped = async (i: string) => ((await (await fetch(`${target.url}/${i}/_mapping`)).json()) as Record<string, { mappings: { properties: { message: { type?: string } } } }>)[i]!.mappings.properties.message.type;
    expect(await mapped(index)).toBe(await mapped(direct));
  });

  it("an _id with a lone surrogate is the document the engine stores under U+FFFD: sent again that way it is an update of it, never its own duplicate (hostile-input audit)", async () => {
    const index = name("mark");
    const [a, b] = englishVariants(NEWS_EN, 2);
    const first = await rawBulk(h.url, "/_bulk", `{"index":{"_index":"${index}","_id":"a\\ufffd"}}\n${JSON.stringify({ message: a })}\n`);
    expect(first.body.items[0]!.index).toMatchObject({ _id: "a\ufffd", status: 201, neardup: { status: "original" } });
    const again = await rawBulk(h.url, "/_bulk", `{"index":{"_index":"${index}","_id":"a\\ud800"}}\n${JSON.stringify({ message: b })}\n`);
    expect(again.body.items[0]!.index).toMatchObject({ _id: "a\ufffd", status: 200, result: "updated", neardup: { status: "original" } });
    await h.engine.refresh(index);
    expect(await h.engine.get(index, "a\ufffd")).toMatchObject({ message: b, neardup: { status: "original" } });
  });

  it("an index name the engine takes and neardup does not (`@`, non-ASCII) is written as sent, each item marked unchecked with why (hostile-input audit: no marker, dedup silently off)", async () => {
    const base = name("mark");
    const odd = [`${base}-caf\u00e9`, `${base}@x`];
    for (const index of odd) {
      const res = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "1" } }, { message: NEWS_EN }));
      const item = res.body.items[0]!.index!;
      expect(item.status, index).toBe(201);
      expect(item.neardup, index).toMatchObject({ status: "unchecked", reason: expect.stringMatching(/not fingerprinted, written as sent: neardup does not deduplicate .* index name/) });
      created.push(String(item._index));
    }
  });

  it.each([
    ["stores no _source", { enabled: false }, /stores no _source/],
    ["leaves the text out of _source", { excludes: ["message"] }, /leaves out message/],
  ])("an index that %s is written as sent, each item marked unchecked with why (hostile-input audit: near-duplicates got a 502, or an exact copy was an original)", async (_kind, source, why) => {
    const index = name("mark");
    expect((await fetch(`${target.url}/${index}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ mappings: { _source: source } }) })).status).toBe(200);
    const res = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "a" } }, { message: NEWS_EN }, { index: { _index: index, _id: "b" } }, { message: NEWS_EN }));
    for (const item of res.body.items) expect(item.index).toMatchObject({ status: 201, neardup: { status: "unchecked", reason: expect.stringMatching(why) } });
  });

  it("a request with an update body the engine refuses gets the engine's whole-request 400, and nothing is written (hostile-input audit: 200, the text written, a valid item answered with the update's error)", async () => {
    const index = name("mark");
    const body = (into: string) => ndjson({ index: { _index: into, _id: "a" } }, { message: NEWS_EN }, { index: { _index: into, _id: "b" } }, { other: "no message" }, { update: { _index: into, _id: "c" } }, '{"doc":{"x":1,"x":2}}');
    const direct = await rawBulk(target.url, "/_bulk", body(`${index}-direct`));
    const viaProxy = await rawBulk(h.url, "/_bulk", body(index));
    expect(direct.status).toBe(400);
    expect(viaProxy.status).toBe(400);
    expect(viaProxy.body.error!.type).toBe(direct.body.error!.type);
    expect(await h.engine.indexExists(index)).toBe(false);
  });

  it("a body of nothing but blank lines gets the engine's own 400 at once, not forwarded (hostile-input audit: a 100 KB gzip body of 99 MB of newlines held every other client's _bulk for 15 s)", async () => {
    const index = name("mark");
    const blank = "\n".repeat(20 * 1024 * 1024);
    const direct = await rawBulk(target.url, `/${index}/_bulk`, blank, { gzip: true });
    const viaProxy = await rawBulk(h.url, `/${index}/_bulk`, blank, { gzip: true });
    expect(viaProxy.status).toBe(direct.status);
    expect(viaProxy.body).toEqual(direct.body);
  });

  it("a date-math index name is resolved as the engine resolves it, and its items are deduplicated there (hostile-input audit: they passed every rule by)", async () => {
    const base = name("mark");
    // The engine's own resolution is the oracle: the same expressions written straight to it.
    for (const expression of ["now/d", "now-1d/d", "now/M{yyyy.MM}", "now/w{yyyy.MM.dd}", "now/d{yyyy.MM.dd|+08:00}", "now/h{yyyy.MM.dd.HH}"]) {
      const dateMath = `<${base}-direct-{${expression}}>`;
      const before = resolveDateMathName(dateMath, Date.now());
      const res = await rawBulk(target.url, "/_bulk", ndjson({ index: { _index: dateMath, _id: "x" } }, { other: 1 }));
      const after = resolveDateMathName(dateMath, Date.now());
      const resolved = String(res.body.items[0]!.index!._index);
      created.push(resolved);
      expect([before, after], expression).toContain(resolved);
    }
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const dateMath = `<${base}-dm-{now/d}>`;
    const first = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: dateMath, _id: "a" } }, { message: a }));
    const second = await rawBulk(h.url, `/${encodeURIComponent(dateMath)}/_bulk`, ndjson({ index: { _id: "b" } }, { message: b }));
    const stored = String(first.body.items[0]!.index!._index);
    created.push(stored);
    expect(stored).toBe(resolveDateMathName(dateMath, Date.now()));
    expect(first.body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    expect(second.body.items[0]!.index).toMatchObject({ _index: stored, status: 201, neardup: { status: "duplicate", duplicate_of: "a" } });
  });

  it("fingerprinted items are written in request order, not decision order: the first source in the request maps a new field, as in the engine (differential audit: ids b then a, decided a first, and b's text for a field mapped from a's number was refused)", async () => {
    const index = name("mark");
    const body = (into: string) => ndjson({ index: { _index: into, _id: "b" } }, { message: NEWS_EN, v: "abc" }, { index: { _index: into, _id: "a" } }, { message: OTHER_ZH, v: 5 });
    const direct = await rawBulk(target.url, "/_bulk", body(`${index}-direct`));
    created.push(`${index}-direct`);
    const viaProxy = await rawBulk(h.url, "/_bulk", body(index));
    const statuses = (r: typeof viaProxy) => r.body.items.map((i) => i.index!.status);
    expect(statuses(direct)).toEqual([201, 201]);
    expect(statuses(viaProxy)).toEqual(statuses(direct));
  });

  it("a write with an _id over 512 bytes fails the whole request, as in the engine, and nothing is written (differential audit: the rest was written and the id answered 502)", async () => {
    const index = name("mark");
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const body = (into: string) => ndjson({ index: { _index: into, _id: "a" } }, { message: a }, { index: { _index: into, _id: "x".repeat(513) } }, { message: b });
    const direct = await rawBulk(target.url, "/_bulk", body(`${index}-direct`));
    const viaProxy = await rawBulk(h.url, "/_bulk", body(index));
    expect(direct.status).toBe(400);
    expect(viaProxy.status).toBe(400);
    expect(viaProxy.body.error!.type).toBe(direct.body.error!.type);
    await h.engine.refresh(index).catch(() => undefined);
    expect(await h.engine.get(index, "a").catch(() => undefined)).toBeUndefined();
  });

  it("the first write into a new index a rule names, a source without a text that carries its own neardup object, leaves the index deduplicated (differential audit: neardup's fields were mapped as text, and every later text was unchecked)", async () => {
    const index = name("mark");
    const first = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "x" } }, { other: "x", neardup: { simhash: "abc", status: "original" } }));
    expect(first.body.items[0]!.index).toMatchObject({ status: 201 });
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const next = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "a" } }, { message: a }, { index: { _index: index, _id: "b" } }, { message: b }));
    expect(next.body.items.map((i) => i.index!.neardup)).toMatchObject([{ status: "original" }, { status: "duplicate", duplicate_of: "a" }]);
  });

  it("a delete before the writes into an index deleted behind the proxy (its service made before) is the engine's not_found (differential audit: index_not_found once)", async () => {
    const index = name("mark");
    const body = ndjson({ delete: { _index: index, _id: "7" } }, { index: { _index: index } }, { message: NEWS_EN });
    for (let round = 0; round < 2; round++) {
      await h.engine.deleteIndex(index).catch(() => undefined);
      const res = await rawBulk(h.url, "/_bulk", body);
      expect(res.body.items[0]!.delete, `round ${round}`).toMatchObject({ status: 404, result: "not_found" });
      expect(res.body.errors).toBe(false);
    }
  });

  it("a document deleted through the proxy is no one's original any more: a near-duplicate sent after the delete, in the same bulk or at once, is stored (skip dropped it)", async () => {
    const index = name("skip");
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const [c, d] = englishVariants(NEWS_EN, 2);
    const first = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "old" } }, { message: a }, { index: { _index: index, _id: "x" } }, { message: c }));
    expect(first.body.items.map((i) => i.index!.status)).toEqual([201, 201]);
    // The delete, then a near-duplicate of what it deleted, in one request: decided after the delete, as sent.
    const same = await rawBulk(h.url, "/_bulk", ndjson({ delete: { _index: index, _id: "old" } }, { index: { _index: index, _id: "new" } }, { message: b }));
    expect(same.body.items[0]!.delete).toMatchObject({ status: 200, result: "deleted" });
    expect(same.body.items[1]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    // The delete alone, then at once (before the engine's refresh shows it) a near-duplicate of what it deleted.
    const del = await rawBulk(h.url, "/_bulk", ndjson({ delete: { _index: index, _id: "x" } }));
    expect(del.body.items[0]!.delete).toMatchObject({ status: 200, result: "deleted" });
    const next = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "y" } }, { message: d }));
    expect(next.body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    await h.engine.refresh(index);
    expect(await h.engine.get(index, "new")).toMatchObject({ message: b });
    expect(await h.engine.get(index, "y")).toMatchObject({ message: d });
    // What is not deleted stays an original: a near-duplicate of "new" is skipped.
    const again = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "again" } }, { message: a }));
    expect(again.body.items[0]!.index).toMatchObject({ status: 200, result: "noop", neardup: { duplicate_of: "new" } });
  });

  it("a delete in an index this proxy has no service for yet (another sidecar wrote it) still takes the document out of the lookups after it, in the same bulk or at once (skip dropped the near-duplicate)", async () => {
    const seed = name("skip");
    const [a, b] = englishVariants(RECIPE_EN, 2);
    expect((await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: seed, _id: "old" } }, { message: a }))).body.items[0]!.index!.status).toBe(201);
    const mapping = ((await (await fetch(`${target.url}/${seed}/_mapping`)).json()) as Record<string, { mappings: unknown }>)[seed]!.mappings;
    const stored = await h.engine.get<Record<string, unknown>>(seed, "old");
    for (const alone of [false, true]) {
      // The same document, neardup fields and all, in an index this proxy never wrote: as another sidecar leaves it.
      const index = name("skip");
      expect((await fetch(`${target.url}/${index}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ mappings: mapping }) })).status).toBe(200);
      expect((await fetch(`${target.url}/${index}/_doc/old?refresh=true`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(stored) })).status).toBe(201);
      const del = ndjson({ delete: { _index: index, _id: "old" } });
      const near = ndjson({ index: { _index: index, _id: "new" } }, { message: b });
      // In one bulk; or the delete alone (a bulk with nothing to fingerprint, sent to the engine as it came), then at once.
      const res = alone ? await rawBulk(h.url, "/_bulk", del) : await rawBulk(h.url, "/_bulk", del + near);
      expect(res.body.items[0]!.delete).toMatchObject({ status: 200, result: "deleted" });
      const item = alone ? (await rawBulk(h.url, "/_bulk", near)).body.items[0]! : res.body.items[1]!;
      expect(item.index, alone ? "delete alone, then at once" : "in one bulk").toMatchObject({ status: 201, neardup: { status: "original" } }); // was 200 noop, a duplicate of "old"
      await h.engine.refresh(index);
      expect(await h.engine.get(index, "new")).toMatchObject({ message: b });
    }
  });

  it("an id sent twice in one bulk is written in the order sent, whatever its @timestamp, as the engine applies it (shipper audit: the first version stayed)", async () => {
    const index = name("mark");
    const v1 = { message: "first version of the text about the quick brown fox", "@timestamp": "2026-01-02T00:00:00Z" };
    const v2 = { message: "second version with totally different words about library hours", "@timestamp": "2026-01-01T00:00:00Z" };
    const indexed = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "x" } }, v1, { index: { _index: index, _id: "x" } }, v2));
    expect(indexed.body.items.map((i) => [i.index!.status, i.index!.result])).toEqual([
      [201, "created"],
      [200, "updated"],
    ]);
    expect(await h.engine.get(index, "x")).toMatchObject({ message: v2.message });
    // Two creates of one id: the first is written, the second is the engine's 409.
    const created = await rawBulk(h.url, "/_bulk", ndjson({ create: { _index: index, _id: "y" } }, v1, { create: { _index: index, _id: "y" } }, v2));
    expect(created.body.items.map((i) => i.create!.status)).toEqual([201, 409]);
    expect(await h.engine.get(index, "y")).toMatchObject({ message: v1.message });
  });

  it("an id sent twice in one bulk keeps its last version when the first is a near-duplicate of a document later in the bulk (black-box audit: the first version stayed, as a duplicate)", async () => {
    const index = name("mark");
    const plain = `${prefix}-plain-${created.length}`;
    created.push(plain);
    const body = (into: string) =>
      ndjson(
        { index: { _index: into, _id: "b" } },
        { message: "order probe: the backup of volume seven failed with checksum mismatch 1" },
        { index: { _index: into, _id: "c" } },
        { message: "order probe: user session expired after forty minutes of inactivity" },
        { index: { _index: into, _id: "b" } },
        { message: "order probe: user session expired after forty minutes of inactivity 2" },
        { index: { _index: into, _id: "a" } },
        // Earlier than the others (sent without a time: decided at arrival), so decided first: b's first version is its near-duplicate.
        { message: "order probe: the backup of volume seven failed with checksum mismatch", "@timestamp": new Date(Date.now() - 60_000).toISOString() },
      );
    const viaProxy = await rawBulk(h.url, "/_bulk", body(index));
    const direct = await rawBulk(target.url, "/_bulk", body(plain));
    const statuses = (r: typeof viaProxy) => r.body.items.map((i) => [i.index!.status, i.index!.result]);
    expect(statuses(viaProxy)).toEqual(statuses(direct));
    expect(viaProxy.body.items[0]!.index).toMatchObject({ neardup: { status: "duplicate", duplicate_of: "a" } });
    expect(await h.engine.get(index, "b")).toMatchObject({ message: "order probe: user session expired after forty minutes of inactivity 2" });
    expect(await h.engine.get(plain, "b")).toMatchObject({ message: "order probe: user session expired after forty minutes of inactivity 2" });
  });

  it("an index deleted, or deleted and made again without the neardup mapping, while the proxy runs: later writes are deduplicated again (shipper audit: a per-item 502 for ever)", async () => {
    const index = name("mark");
    const [b, c] = englishVariants(NEWS_EN, 2);
    const send = async (id: string, message: string) => (await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: index, _id: id } }, { message }))).body.items[0]!.index!;
    expect(await send("1", RECIPE_EN)).toMatchObject({ status: 201, neardup: { status: "original" } });
    await h.engine.deleteIndex(index);
    expect(await send("2", b!)).toMatchObject({ status: 201, neardup: { status: "original" } });
    expect(await send("3", c!)).toMatchObject({ status: 201, neardup: { status: "duplicate", duplicate_of: "2" } });
    await h.engine.deleteIndex(index);
    await h.engine.createIndex(index, { mappings: { properties: { n: { type: "long" } } } });
    // A bulk large enough for grouped lookups, which answer no hits (not an error) on an index without the mapping.
    const many = Array.from({ length: 60 }, (_, k) => [{ index: { _index: index, _id: `m${k}` } }, { message: `Bulletin ${k * 7919}: ${OTHER_ZH.slice(k % 7)} ${k}` }]).flat();
    const grouped = await rawBulk(h.url, "/_bulk", ndjson(...many));
    expect(grouped.body.errors).toBe(false);
    expect(await h.engine.mapsField(index, "neardup.simhash")).toBe(true);
    expect(await send("4", MOM_A)).toMatchObject({ status: 201, neardup: { status: "original" } });
    expect(await send("5", MOM_B)).toMatchObject({ status: 201, neardup: { status: "duplicate", duplicate_of: "4" } });
    await h.engine.refresh(index);
    expect([...(await h.engine.mget(index, ["1", "2", "3", "4", "5"])).keys()].sort()).toEqual(["4", "5"]);
    expect(await h.engine.mapsField(index, "neardup.lsh")).toBe(true);
  });

  it("gzip body; update and delete in the same bulk, in order; an index outside the rules untouched; a malformed source line fails alone", async () => {
    const index = name("mark");
    const other = name("plain");
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const body = ndjson(
      { index: { _index: index, _id: "1" } },
      { message: a, n: 1 },
      { update: { _index: index, _id: "1" } },
      { doc: { n: 2 } },
      { index: { _index: index, _id: "2" } },
      "{ this is not json",
      { create: { _index: index, _id: "3" } },
      { message: b, n: 3 },
      { index: { _index: other, _id: "p" } },
      { message: b, kept: true },
      { delete: { _index: index, _id: "3" } },
      { index: { _index: index, _id: "4" } },
      { message: NEWS_EN },
    );
    const res = await rawBulk(h.url, "/_bulk?refresh=true", body, { gzip: true });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBe(true);
    const items = res.body.items;
    expect(items.map((i) => Object.keys(i)[0])).toEqual(["index", "update", "index", "create", "index", "delete", "index"]);
    expect(items[0]!.index).toMatchObject({ _id: "1", status: 201, neardup: { status: "original" } });
    expect(items[1]!.update).toMatchObject({ _id: "1", status: 200, result: "updated" });
    expect(items[2]!.index).toMatchObject({ _id: "2", status: 400, error: { type: expect.stringMatching(/pars/) } });
    expect(items[3]!.create).toMatchObject({ _id: "3", status: 201, neardup: { status: "duplicate", duplicate_of: "1" } });
    expect(items[4]!.index).toMatchObject({ _id: "p", status: 201 });
    expect(items[4]!.index!.neardup).toBeUndefined();
    expect(items[5]!.delete).toMatchObject({ _id: "3", status: 200, result: "deleted" });
    expect(items[6]!.index).toMatchObject({ _id: "4", status: 201, neardup: { status: "original" } });
    expect(await h.engine.get(index, "1")).toMatchObject({ message: a, n: 2, neardup: { status: "original" } });
    expect(await h.engine.get(index, "3")).toBeUndefined();
    expect(await h.engine.get(other, "p")).toEqual({ message: b, kept: true });
  });

  it("an index name the engine refuses gets the engine's per-item 400, not a 500; the other items are written", async () => {
    const index = name("mark");
    const bad = `${prefix}-mark-UPPER`; // matches the rule, and no engine takes an upper-case name
    const body = ndjson({ index: { _index: bad, _id: "u" } }, { message: NEWS_EN }, { index: { _index: bad } }, { message: OTHER_ZH }, { index: { _index: index, _id: "ok" } }, { message: RECIPE_EN });
    const viaProxy = await rawBulk(h.url, "/_bulk?refresh=true", body);
    const direct = await rawBulk(target.url, "/_bulk", ndjson({ index: { _index: bad, _id: "u" } }, { message: NEWS_EN }, { index: { _index: bad } }, { message: OTHER_ZH }));
    expect(viaProxy.status).toBe(200);
    // The engine's own items, field for field (black-box audit: `_id: null`, `index_uuid` and the reason differed).
    expect(viaProxy.body.items.slice(0, 2)).toEqual(direct.body.items);
    expect(viaProxy.body.items[0]!.index).toMatchObject({ error: { type: "invalid_index_name_exception" } });
    expect(viaProxy.body.items[2]!.index).toMatchObject({ _id: "ok", status: 201, neardup: { status: "original" } });
  });

  it("a query parameter the engine refuses gets the engine's own whole-request 400 and nothing is written", async () => {
    const index = name("mark");
    const body = ndjson({ index: { _index: index, _id: "1" } }, { message: NEWS_EN }, { index: { _index: index, _id: "2" } }, { message: RECIPE_EN });
    const viaProxy = await rawBulk(h.url, "/_bulk?refresh=bogus", body);
    const direct = await rawBulk(target.url, "/_bulk?refresh=bogus", body);
    expect(direct.status).toBe(400);
    expect(viaProxy.status).toBe(400); // was 200 with a per-item 502 "refused the bulk write with HTTP 400"
    expect(viaProxy.body.error!.type).toBe(direct.body.error!.type);
    await h.engine.refresh(index).catch(() => undefined);
    expect(await h.engine.get(index, "1")).toBeUndefined();
    // The proxy is not left holding anything: the same documents go in afterwards.
    const again = await rawBulk(h.url, "/_bulk?refresh=true", body);
    expect(again.body.items.map((i) => i.index!.status)).toEqual([201, 201]);
  });

  it("an action line with a byte order mark or a second key is fingerprinted, as the engine reads it (it went in without dedup)", async () => {
    const index = name("mark");
    const body = `\ufeff${JSON.stringify({ index: { _index: index, _id: "a" } })}\n\ufeff${JSON.stringify({ message: MOM_A })}\n${JSON.stringify({ index: { _index: index, _id: "b" }, delete: { _id: "zz" } })}\n${JSON.stringify({ message: MOM_B })}\n`;
    const direct = await rawBulk(target.url, "/_bulk", body.replaceAll(index, `${index}-direct`));
    created.push(`${index}-direct`);
    expect(direct.body.items.map((i) => i.index!.status)).toEqual([201, 201]); // the engine takes both lines
    const res = await rawBulk(h.url, "/_bulk?refresh=true", body);
    expect(res.body.items[0]!.index).toMatchObject({ _id: "a", status: 201, neardup: { status: "original" } });
    expect(res.body.items[1]!.index).toMatchObject({ _id: "b", status: 201, neardup: { status: "duplicate", duplicate_of: "a" } });
    expect(await h.engine.get(index, "a")).toMatchObject({ message: MOM_A, neardup: { status: "original" } });
  });

  it("a create of a stored original's id, refused as a conflict, does not hide that original from a near-duplicate later in the bulk (reject, and mark in one bulk)", async () => {
    const index = name("reject");
    expect((await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: index, _id: "1" } }, { message: MOM_A }))).body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    const res = await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ create: { _index: index, _id: "1" } }, { message: OTHER_ZH }, { create: { _index: index, _id: "3" } }, { message: MOM_B }));
    expect((res.body.items[0]!.create!.error as { type: string }).type).toBe("version_conflict_engine_exception");
    // Was: 201, an original, while its original 1 is stored: two originals under reject.
    expect(res.body.items[1]!.create).toMatchObject({ status: 409, error: { type: "neardup_duplicate_exception", duplicate_of: "1" } });
    expect(await h.engine.get(index, "3")).toBeUndefined();
    expect(await h.engine.get(index, "1")).toMatchObject({ message: MOM_A });

    const marked = name("mark");
    const one = await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: marked, _id: "1" } }, { message: MOM_A }, { create: { _index: marked, _id: "1" } }, { message: OTHER_ZH }, { create: { _index: marked, _id: "2" } }, { message: MOM_B }));
    expect(one.body.items.map((i) => Object.values(i)[0]!.status)).toEqual([201, 409, 201]);
    expect(one.body.items[2]!.create).toMatchObject({ neardup: { status: "duplicate", duplicate_of: "1" } }); // was an original
    expect(await h.engine.get(marked, "2")).toMatchObject({ neardup: { status: "duplicate", duplicate_of: "1" } });
  });

  it("a near-duplicate of an original the engine refuses for its content is decided again without it and written, and an update after it applies, as with the engine alone (it was a 429 for ever for shippers that resend a whole batch)", async () => {
    const index = name("mark");
    const made = await fetch(`${target.url}/${index}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ mappings: { properties: { n: { type: "long" } } } }) });
    expect(made.status).toBe(200);
    const batch = ndjson({ index: { _index: index, _id: "1" } }, { message: MOM_A, n: "not a number" }, { index: { _index: index, _id: "2" } }, { message: MOM_B }, { update: { _index: index, _id: "2" } }, { doc: { tag: "u" } });
    for (let round = 0; round < 2; round++) {
      // The whole batch twice, as a shipper that resends a batch with errors does: the same answer each time.
      const res = await rawBulk(h.url, "/_bulk?refresh=true", batch);
      expect(res.body.items.map((i) => Object.values(i)[0]!.status)).toEqual([400, round === 0 ? 201 : 200, 200]);
      expect((res.body.items[0]!.index!.error as { type: string }).type).toMatch(/^(mapper|document)_parsing_exception$/);
      expect(res.body.items[1]!.index).toMatchObject({ neardup: { status: "original" } });
    }
    expect(await h.engine.get(index, "1")).toBeUndefined();
    expect(await h.engine.get(index, "2")).toMatchObject({ message: MOM_B, tag: "u", neardup: { status: "original" } });
  });

  it("an index the proxy creates gets the neardup fields and nothing else: the user's template and dynamic mapping make the rest, as for a write sent to the engine", async () => {
    const index = name("mark");
    const direct = `${index}-direct`;
    created.push(direct);
    const template = `${index}-template`;
    const put = await fetch(`${target.url}/_index_template/${template}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ index_patterns: [`${index}*`], priority: 500, template: { settings: { "index.number_of_replicas": 0 }, mappings: { properties: { message: { type: "text", fields: { keyword: { type: "keyword", ignore_above: 256 } } } } } } }),
    });
    expect(put.status).toBe(200);
    try {
      const body = (ix: string) => ndjson({ index: { _index: ix, _id: "1" } }, { message: MOM_A, fields: { latency: 12 }, "@timestamp": "2026-12-05T00:00:00Z" });
      expect((await rawBulk(target.url, "/_bulk?refresh=true", body(direct))).body.items[0]!.index!.status).toBe(201);
      expect((await rawBulk(h.url, "/_bulk?refresh=true", body(index))).body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
      const mappings = async (ix: string) => ((await (await fetch(`${target.url}/${ix}/_mapping`)).json()) as Record<string, { mappings: { properties: Record<string, unknown> } }>)[ix]!.mappings;
      const viaProxy = await mappings(index);
      expect(viaProxy.properties.neardup).toBeDefined();
      delete viaProxy.properties.neardup;
      // Was: `message` as plain text (the template's `message.keyword` gone), `fields` as one flat_object/flattened field.
      expect(viaProxy).toEqual(await mappings(direct));
      const settings = async (ix: string) => ((await (await fetch(`${target.url}/${ix}/_settings?flat_settings=true`)).json()) as Record<string, { settings: Record<string, string> }>)[ix]!.settings;
      const own = await settings(index);
      expect(own["index.requests.cache.enable"]).toBeUndefined(); // was "false"
      expect(Object.keys(own).filter((k) => k.startsWith("index.merge."))).toEqual([]);
      expect(own["index.number_of_replicas"]).toBe("0"); // the user's template applied
    } finally {
      await fetch(`${target.url}/_index_template/${template}`, { method: "DELETE" });
    }
  });

  it("a source with a neardup key of its own is written as sent less that key: a repeated key is refused as the engine refuses it, a long keeps its digits", async () => {
    const index = name("mark");
    const repeated = `{"neardup":1,"message":${JSON.stringify(MOM_A)},"message":${JSON.stringify(NEWS_EN)}}`;
    const long = `{"neardup":{"status":"x"},"message":${JSON.stringify(OTHER_ZH)},"n":9007199254740993,"neardup":2}`;
    const body = `{"index":{"_index":"${index}","_id":"r"}}\n${repeated}\n{"index":{"_index":"${index}","_id":"l"}}\n${long}\n`;
    const direct = await rawBulk(target.url, "/_bulk?refresh=true", body.replaceAll(index, `${index}-direct`));
    created.push(`${index}-direct`);
    expect(direct.body.items.map((i) => i.index!.status)).toEqual([400, 400]); // repeated keys, both lines
    const plain = `{"index":{"_index":"${index}","_id":"l"}}\n{"neardup":{"status":"x"},"message":${JSON.stringify(OTHER_ZH)},"n":9007199254740993}\n`;
    const res = await rawBulk(h.url, "/_bulk?refresh=true", body);
    // Was: the first line written again from JSON.parse's object (the last "message" kept) and stored on a retry.
    expect(res.body.items.map((i) => [i.index!.status, (i.index!.error as { type?: string } | undefined)?.type])).toEqual(direct.body.items.map((i) => [i.index!.status, (i.index!.error as { type?: string } | undefined)?.type]));
    const ok = await rawBulk(h.url, "/_bulk?refresh=true", plain);
    expect(ok.body.items[0]!.index).toMatchObject({ _id: "l", status: 201, neardup: { status: "original" } });
    const got = await fetch(`${target.url}/${index}/_doc/l`).then((r) => r.text());
    expect(got).toContain('"n":9007199254740993'); // was 9007199254740992: the source written again from JSON.parse's object
    expect(got).toMatch(/"_source":\{"neardup":\{"/); // the service's neardup first, the client's gone
    expect(got.match(/"neardup":/g)).toHaveLength(1);
    expect(await h.engine.get(index, "l")).toMatchObject({ neardup: { status: "original" } });
    expect(await h.engine.get(index, "r")).toBeUndefined();
  });

  it("numbers in an action line keep their digits, as the engine reads them: two ids past 2^53 stay two documents, routing and version hold", async () => {
    const index = name("mark");
    const body = `{"index":{"_index":"${index}","_id":9007199254740993,"routing":9007199254740995,"version":9007199254740993,"version_type":"external"}}\n${JSON.stringify({ message: NEWS_EN })}\n{"index":{"_index":"${index}","_id":9007199254740992}}\n${JSON.stringify({ message: OTHER_ZH })}\n`;
    const direct = await rawBulk(target.url, "/_bulk?refresh=true", body.replaceAll(index, `${index}-direct`));
    created.push(`${index}-direct`);
    expect(direct.body.items.map((i) => i.index!.status)).toEqual([201, 201]);
    const res = await rawBulk(h.url, "/_bulk?refresh=true", body);
    expect(res.body.items.map((i) => [i.index!._id, i.index!.status])).toEqual(direct.body.items.map((i) => [i.index!._id, i.index!.status]));
    expect(res.body.items[0]!.index).toMatchObject({ neardup: { status: "original" } });
    const stored = async (ix: string) => {
      const hits = await fetch(`${target.url}/${ix}/_search?version=true`).then((r) => r.text());
      // Read from the text: JSON.parse would round these numbers as the proxy used to.
      const found = [...hits.matchAll(/"_id":"(\d+)","_version":(\d+)(.*?)"_source"/g)].map((m) => [m[1], m[2], /"_routing":"(\d+)"/.exec(m[3]!)?.[1]]);
      return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
    };
    const expected = await stored(`${index}-direct`);
    expect(expected).toEqual([
      ["9007199254740992", "1", undefined],
      ["9007199254740993", "9007199254740993", "9007199254740995"],
    ]);
    expect(await stored(index)).toEqual(expected);
  });

  it("a @timestamp far in the future is decided at its arrival time; the source keeps it (it stayed a candidate until 2099)", async () => {
    const index = name("mark");
    const before = Date.now();
    const res = await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: index, _id: "f" } }, { message: NEWS_EN, "@timestamp": "2099-01-01T00:00:00Z" }, { index: { _index: index, _id: "p" } }, { message: RECIPE_EN, "@timestamp": "2026-12-01T10:00:00Z" }));
    expect(res.body.items.map((i) => i.index!.status)).toEqual([201, 201]);
    const future = await h.engine.get<{ "@timestamp": string; neardup: { timestamp: string } }>(index, "f");
    expect(future!["@timestamp"]).toBe("2099-01-01T00:00:00Z");
    expect(Date.parse(future!.neardup.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(future!.neardup.timestamp)).toBeLessThanOrEqual(Date.now() + 1000);
    const past = await h.engine.get<{ neardup: { timestamp: string } }>(index, "p");
    expect(past!.neardup.timestamp).toBe("2026-12-01T10:00:00.000Z");
  });

  it("an index neardup cannot deduplicate as it is gets its documents written as sent, never refused (third audit: per-item 400/500/502 that shippers drop)", async () => {
    const put = (path: string, body: unknown) => fetch(`${target.url}${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const [a, b] = englishVariants(RECIPE_EN, 2);
    // A refresh interval as long as the recent-writes window (30 s, common for logs): the window is lengthened, dedup runs.
    const slow = name("mark");
    expect((await put(`/${slow}`, { settings: { refresh_interval: "30s" } })).status).toBe(200);
    const slowRes = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: slow, _id: "a" } }, { message: a }, { index: { _index: slow, _id: "b" } }, { message: b }));
    expect(slowRes.body.items.map((i) => i.index!.neardup), JSON.stringify(slowRes.body.items[0])).toMatchObject([{ status: "original" }, { status: "duplicate", duplicate_of: "a" }]);
    // Refresh disabled: written unchecked.
    const off = name("mark");
    expect((await put(`/${off}`, { settings: { refresh_interval: "-1" } })).status).toBe(200);
    const offRes = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: off, _id: "a" } }, { message: a }));
    expect(offRes.body.items[0]!.index).toMatchObject({ _id: "a", status: 201, neardup: { status: "unchecked", reason: expect.stringContaining("refresh disabled") } });
    // A field limit the neardup fields would pass: written unchecked.
    const tight = name("mark");
    expect((await put(`/${tight}`, { settings: { "index.mapping.total_fields.limit": 3 } })).status).toBe(200);
    const tightRes = await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: tight, _id: "a" } }, { message: a }));
    expect(tightRes.body.items[0]!.index).toMatchObject({ _id: "a", status: 201, neardup: { status: "unchecked" } });
    for (const index of [slow, off, tight]) await fetch(`${target.url}/${index}/_refresh`, { method: "POST" });
    for (const [index, id] of [[slow, "b"], [off, "a"], [tight, "a"]] as const) expect((await fetch(`${target.url}/${index}/_doc/${id}`)).status).toBe(200);
  });

  it("an alias and the index it writes to are one service: near-duplicates sent through each, before any refresh, keep one original (fourth audit: two services, two originals)", async () => {
    const put = (path: string, body: unknown) => fetch(`${target.url}${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const [a, b, c] = englishVariants(RECIPE_EN, 3);
    const index = name("mark");
    const alias = `${index}-alias`;
    // A refresh interval longer than the test: the engine's search shows none of these writes, so only one
    // recent-writes window can see the earlier document.
    expect((await put(`/${index}`, { settings: { refresh_interval: "60s" }, aliases: { [alias]: { is_write_index: true } } })).status).toBe(200);
    const viaAlias = await rawBulk(h.url, `/${alias}/_bulk`, ndjson({ index: { _id: "a" } }, { message: a }));
    const viaIndex = await rawBulk(h.url, `/${index}/_bulk`, ndjson({ index: { _id: "b" } }, { message: b }));
    const viaBody = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: alias, _id: "c" } }, { message: c }));
    expect(viaAlias.body.items[0]!.index).toMatchObject({ _index: index, status: 201, neardup: { status: "original" } });
    expect(viaIndex.body.items[0]!.index).toMatchObject({ _index: index, status: 201, neardup: { status: "duplicate", duplicate_of: "a" } });
    expect(viaBody.body.items[0]!.index).toMatchObject({ _index: index, status: 201, neardup: { status: "duplicate", duplicate_of: "a" } });
    // At the same moment, the other way round: one of the two is the original.
    const [x, y] = englishVariants(NEWS_EN, 2);
    const [first, second] = await Promise.all([rawBulk(h.url, `/${index}/_bulk`, ndjson({ index: { _id: "x" } }, { message: x })), rawBulk(h.url, `/${alias}/_bulk`, ndjson({ index: { _id: "y" } }, { message: y }))]);
    const verdicts = [first, second].map((r) => (r.body.items[0]!.index!.neardup as { status: string }).status).sort();
    expect(verdicts).toEqual(["duplicate", "original"]);
    await h.engine.refresh(index);
    for (const id of ["a", "b", "c", "x", "y"]) expect((await h.engine.get<{ neardup: { status: string } }>(index, id))?.neardup.status, id).toBeDefined();
  });

  it("an alias over a closed old index and an open write index: writes through the alias, and naming the write index, are deduplicated, not refused (audit 13: a per-item 502 for every write)", async () => {
    const put = (path: string, body: unknown) => fetch(`${target.url}${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const old = name("mark");
    const live = name("mark");
    const alias = `${live}-alias`;
    expect((await put(`/${old}`, { aliases: { [alias]: { is_write_index: false } } })).status).toBe(200);
    expect((await put(`/${live}`, { aliases: { [alias]: { is_write_index: true } } })).status).toBe(200);
    expect((await fetch(`${target.url}/${old}/_close`, { method: "POST" })).status).toBe(200);
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const first = await rawBulk(h.url, `/${alias}/_bulk`, ndjson({ index: { _id: "a" } }, { message: a }));
    expect(first.body.items[0]!.index).toMatchObject({ _index: live, status: 201, neardup: { status: "original" } });
    const second = await rawBulk(h.url, `/${live}/_bulk`, ndjson({ index: { _id: "b" } }, { message: b }));
    expect(second.body.items[0]!.index).toMatchObject({ _index: live, status: 201, neardup: { status: "duplicate", duplicate_of: "a" } });
  });

  it("an update or delete naming the index that an earlier item of the bulk wrote through its alias (or the other way round) runs after that write, as in the engine (audit 14, F1: 404 document_missing, the update lost)", async () => {
    const index = name("mark");
    const alias = `${index}-alias`;
    expect((await putJson(`/${index}`, { aliases: { [alias]: { is_write_index: true } } })).status).toBe(200);
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const [c] = englishVariants(NEWS_EN, 1);
    const r = await rawBulk(
      h.url,
      "/_bulk",
      ndjson(
        { index: { _index: alias, _id: "u1" } }, { message: a },
        { update: { _index: index, _id: "u1" } }, { doc: { tag: 1 } },
        { index: { _index: index, _id: "u2" } }, { message: c },
        { update: { _index: alias, _id: "u2" } }, { doc: { tag: 2 } },
        { index: { _index: alias, _id: "d1" } }, { message: b },
        { delete: { _index: index, _id: "d1" } },
      ),
    );
    expect(r.body.items.map((i) => Object.values(i)[0]!.status)).toEqual([201, 200, 201, 200, 201, 200]);
    await h.engine.refresh(index);
    expect(await h.engine.get(index, "u1")).toMatchObject({ message: a, tag: 1 });
    expect(await h.engine.get(index, "u2")).toMatchObject({ message: c, tag: 2 });
    expect(await h.engine.get(index, "d1")).toBeUndefined();
  });

  it("a delete naming the index, then a near-duplicate of the deleted document through its alias in the same bulk: the near-duplicate is stored (audit 14, F2: skip dropped it, neither stayed)", async () => {
    const index = name("skip");
    const alias = `${index}-alias`;
    expect((await putJson(`/${index}`, { aliases: { [alias]: { is_write_index: true } } })).status).toBe(200);
    const [a, b] = englishVariants(RECIPE_EN, 2);
    const first = await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: alias, _id: "x" } }, { message: a }));
    expect(first.body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    const same = await rawBulk(h.url, "/_bulk", ndjson({ delete: { _index: index, _id: "x" } }, { index: { _index: alias, _id: "y" } }, { message: b }));
    expect(same.body.items[0]!.delete).toMatchObject({ status: 200, result: "deleted" });
    expect(same.body.items[1]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    await h.engine.refresh(index);
    expect(await h.engine.get(index, "y")).toMatchObject({ message: b });
  });

  it("a rollover alias whose current index has a second write alias: writes through the alias look up every index behind it, and only those (audit 14, F4: the older indices were not read; audit 16: the other alias's indices were)", async () => {
    const old = name("mark");
    const live = name("mark");
    const other = name("mark");
    const alias = `${live}-alias`;
    const second = `${live}-a0`; // sorts first, and covers an index the rollover alias does not
    expect((await putJson(`/${old}`, { aliases: { [alias]: { is_write_index: false } } })).status).toBe(200);
    expect((await putJson(`/${other}`, { aliases: { [second]: { is_write_index: false } } })).status).toBe(200);
    expect((await putJson(`/${live}`, { aliases: { [alias]: { is_write_index: true }, [second]: { is_write_index: true } } })).status).toBe(200);
    const [a, b, c] = englishVariants(RECIPE_EN, 3);
    // Originals stored directly in the index only the other alias covers (first) and in the older index, searchable.
    expect((await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: other, _id: "o" } }, { message: c }))).body.items[0]!.index).toMatchObject({ status: 201 });
    expect((await rawBulk(h.url, "/_bulk", ndjson({ index: { _index: old, _id: "x" } }, { message: a }))).body.items[0]!.index).toMatchObject({ status: 201 });
    await h.engine.refresh(other);
    await h.engine.refresh(old);
    const viaAlias = await rawBulk(h.url, `/${alias}/_bulk`, ndjson({ index: { _id: "y" } }, { message: b }));
    expect(viaAlias.body.items[0]!.index).toMatchObject({ _index: live, status: 201, neardup: { status: "duplicate", duplicate_of: "x" } });
  });

  it("a forwarded chunk whose query carries filter_path is answered from the engine's whole items: the stored document is 201, not 502 (audit 14, F8)", async () => {
    const index = name("mark");
    const [a] = englishVariants(RECIPE_EN, 1);
    const chunk = { index, policy: "mark", query: "filter_path=took", headers: {}, mayCreate: true, docs: [{ op: "index", id: "f1", idGiven: true, time: Date.now(), meta: "{}", source: { message: a }, text: a }] };
    const res = await fetch(`${h.url}/_neardup/internal/bulk`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(chunk) });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { items: { status: number; neardup?: { status: string } }[] };
    expect(answer.items[0]).toMatchObject({ status: 201, neardup: { status: "original" } });
    await h.engine.refresh(index);
    expect(await h.engine.get(index, "f1")).toMatchObject({ message: a });
  });

  it("an empty _id, op_type create and require_alias spelt as the engines also read it are answered as the engine answers them (third audit)", async () => {
    const index = name("mark");
    const alias = `${prefix}-mark-alias-only`;
    const send = (to: string, path: string, body: string) => fetch(`${to}${path}`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body }).then(async (r) => ({ status: r.status, body: (await r.json()) as { items?: Record<string, { status: number }>[] } }));
    // An empty _id: the engine's own per-item 400 (the proxy wrote it under a generated id).
    const empty = ndjson({ index: { _index: index, _id: "" } }, { message: NEWS_EN });
    const [d, p] = [await send(target.url, "/_bulk", empty), await send(h.url, "/_bulk", empty)];
    expect(p.body.items![0]!.index!.status).toBe(d.body.items![0]!.index!.status);
    expect(p.body.items![0]!.index!.status).toBe(400);
    // `index` with op_type create: answered under `create`, as the engine does.
    const created = await send(h.url, "/_bulk", ndjson({ index: { _index: index, _id: "oc", op_type: "create" } }, { message: OTHER_ZH }));
    expect(Object.keys(created.body.items![0]!)).toEqual(["create"]);
    expect(created.body.items![0]!.create).toMatchObject({ status: 201, neardup: { status: "original" } });
    // require_alias as the string "true", and as a bare query flag: the proxy creates nothing under the alias's
    // name, and the items get what the engine answers alone (Elasticsearch reads the bare flag as true, OpenSearch not).
    for (const [path, action] of [["/_bulk", { index: { _index: alias, require_alias: "true" } }], ["/_bulk?require_alias", { index: { _index: alias } }]] as const) {
      const alone = await send(target.url, path, ndjson({ index: { ...action.index, _index: `${alias}-direct` } }, { message: RECIPE_EN }));
      const res = await send(h.url, path, ndjson(action, { message: RECIPE_EN }));
      expect(res.body.items![0]!.index!.status, path).toBe(alone.body.items![0]!.index!.status);
      if (alone.body.items![0]!.index!.status === 404) expect((await fetch(`${target.url}/${alias}`, { method: "HEAD" })).status, path).toBe(404);
      for (const idx of [alias, `${alias}-direct`]) await fetch(`${target.url}/${idx}`, { method: "DELETE" });
    }
  });

  it.runIf(target.kind === "elasticsearch")("REST compatibility with 7.x (`compatible-with=7`, `_type`) reaches the engine, as it does without the proxy (third audit: a whole 400)", async () => {
    const index = name("mark");
    const compat = "application/vnd.elasticsearch+x-ndjson; compatible-with=7";
    const body = ndjson({ index: { _index: index, _type: "_doc", _id: "c7" } }, { message: NEWS_EN }, { index: { _index: `${prefix}-untouched-compat`, _type: "_doc", _id: "c7" } }, { n: 1 });
    const res = await fetch(`${h.url}/_bulk?refresh=true`, { method: "POST", headers: { "content-type": compat, accept: compat.replace("x-ndjson", "json") }, body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { items: Record<string, { status: number; neardup?: { status: string } }>[] };
    expect(answer.items.map((i) => i.index!.status)).toEqual([201, 201]);
    expect(answer.items[0]!.index!.neardup?.status).toBe("original");
    await fetch(`${target.url}/${prefix}-untouched-compat`, { method: "DELETE" });
  });

  it("an action parameter the engines do not know refuses the whole request, as the engine alone does: nothing written (third audit)", async () => {
    const index = name("mark");
    const other = `${prefix}-untouched-params`;
    const body = ndjson({ index: { _index: other, _id: "pass" } }, { n: 1 }, { index: { _index: index, _id: "ok" } }, { message: NEWS_EN }, { index: { _index: index, _id: "odd", foo: "bar" } }, { message: RECIPE_EN });
    const direct = await fetch(`${target.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    const viaProxy = await fetch(`${h.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    expect(direct.status).toBe(400);
    expect(viaProxy.status).toBe(400);
    expect(await viaProxy.text()).toContain("unknown parameter [foo]");
    expect((await fetch(`${target.url}/${index}/_doc/ok`)).status).toBe(404);
    expect((await fetch(`${target.url}/${other}/_doc/pass`)).status).toBe(404);
    await fetch(`${target.url}/${other}`, { method: "DELETE" });
  });

  it("a body that is not UTF-8 goes to the engine as sent: nothing stored with U+FFFD in place of the client's bytes", async () => {
    const index = name("mark");
    const other = `${prefix}-untouched-utf8`;
    const body = Buffer.concat([
      Buffer.from(`{"index":{"_index":"${index}","_id":"latin1"}}\n{"message":"caf`),
      Buffer.from([0xe9]),
      Buffer.from(` au lait, encore"}\n{"index":{"_index":"${other}","_id":"latin1"}}\n{"message":"caf`),
      Buffer.from([0xe9]),
      Buffer.from(`"}\n`),
    ]);
    const direct = await fetch(`${target.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    const viaProxy = await fetch(`${h.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    const [d, p] = [(await direct.json()) as { items: Record<string, { status: number }>[] }, (await viaProxy.json()) as { items: Record<string, { status: number }>[] }];
    expect(viaProxy.status).toBe(direct.status);
    expect(p.items.map((i) => i.index!.status)).toEqual(d.items.map((i) => i.index!.status));
    for (const idx of [index, other]) {
      await fetch(`${target.url}/${idx}/_refresh`, { method: "POST" });
      const stored = await fetch(`${target.url}/${idx}/_doc/latin1`).then((r) => r.text());
      expect(stored).not.toContain("\ufffd");
    }
    await fetch(`${target.url}/${other}`, { method: "DELETE" });
  });

  it("one source line that is not UTF-8 fails alone, as in the engine; the other items of the request are still deduplicated (a Latin-1 log line turned dedup off for its whole batch)", async () => {
    const index = name("skip");
    const action = (id: string) => `{"index":{"_index":"${index}","_id":"${id}"}}\n`;
    const body = Buffer.concat([
      Buffer.from(action("orig") + JSON.stringify({ message: MOM_A }) + "\n"),
      Buffer.from(action("latin1") + '{"message":"caf'),
      Buffer.from([0xe9]),
      Buffer.from(' au lait"}\n' + action("near") + JSON.stringify({ message: MOM_B }) + "\n"),
    ]);
    const res = await fetch(`${h.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { errors: boolean; items: Record<string, { status: number; result?: string; error?: { type: string; reason: string }; neardup?: { status: string; duplicate_of?: string } }>[] };
    expect(answer.errors).toBe(true);
    const [orig, latin1, near] = answer.items.map((i) => i.index!);
    expect(orig).toMatchObject({ status: 201 });
    // The engine's own refusal of that item: its bytes reached it as sent.
    expect(latin1!.status).toBe(400);
    expect(JSON.stringify(latin1!.error)).toMatch(/UTF-8/);
    // skip: the near-duplicate is checked and dropped, not written unchecked.
    expect(near).toMatchObject({ status: 200, result: "noop", neardup: { status: "duplicate", duplicate_of: "orig" } });
    await fetch(`${target.url}/${index}/_refresh`, { method: "POST" });
    expect((await fetch(`${target.url}/${index}/_doc/near`)).status).toBe(404);
    expect((await fetch(`${target.url}/${index}/_doc/latin1`)).status).toBe(404);
    // Not UTF-8 in an action line: the engine refuses the whole request, and so does the proxy (nothing written).
    const badAction = Buffer.concat([Buffer.from(`{"index":{"_index":"${index}","_id":"caf`), Buffer.from([0xe9]), Buffer.from(`"}}\n{"message":"x"}\n` + action("after") + JSON.stringify({ message: NEWS_EN }) + "\n")]);
    const whole = await fetch(`${h.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: badAction });
    expect(whole.status).toBe(400);
    await fetch(`${target.url}/${index}/_refresh`, { method: "POST" });
    expect((await fetch(`${target.url}/${index}/_doc/after`)).status).toBe(404);
  });

  it.runIf(target.kind === "opensearch")("the first write to a data stream that does not exist yet creates it, as the engine alone would (it was a per-item 502 on every retry)", async () => {
    // OpenSearch only: the local Elasticsearch build cannot delete a data stream (405), which would leave it behind.
    const stream = `${prefix}-mark-ds`;
    const template = `${prefix}-ds-template`;
    const put = (path: string, body: unknown) => fetch(`${target.url}${path}`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await put(`/_index_template/${template}`, { index_patterns: [`${stream}*`], data_stream: {}, priority: 500 })).status).toBe(200);
    try {
      const [a, b] = englishVariants(NEWS_EN, 2);
      const first = await rawBulk(h.url, "/_bulk", ndjson({ create: { _index: stream } }, { "@timestamp": "2026-12-04T10:00:00Z", message: a }));
      expect(first.body.items[0]!.create).toMatchObject({ status: 201 });
      const second = await rawBulk(h.url, "/_bulk", ndjson({ create: { _index: stream } }, { "@timestamp": "2026-12-04T10:00:01Z", message: b }));
      expect(second.body.items[0]!.create).toMatchObject({ status: 201 });
      await fetch(`${target.url}/${stream}/_refresh`, { method: "POST" });
      const count = (await (await fetch(`${target.url}/${stream}/_count`)).json()) as { count: number };
      expect(count.count).toBe(2);
    } finally {
      await fetch(`${target.url}/_data_stream/${stream}`, { method: "DELETE" });
      await fetch(`${target.url}/_index_template/${template}`, { method: "DELETE" });
    }
  });

  it("a text neardup cannot fingerprint is written as sent, as the engine alone would, and says so (it was a per-item 400 that shippers drop)", async () => {
    const index = name("reject");
    // Zero-width only, blank (hostile-input audit: no `neardup` at all), a lone surrogate (escaped: the engine
    // stores it), and a text over NEARDUP_MAX_TEXT_CHARS.
    const texts: [string, string][] = [
      ["zw", '"\\u200b\\u200b"'],
      ["blank", '"   "'],
      ["ls", '"half \\ud800 pair"'],
      ["long", JSON.stringify("word ".repeat(200_001))],
    ];
    const body = texts.map(([id, text]) => `{"index":{"_index":"${index}","_id":"${id}"}}\n{"message":${text},"n":1.0}\n`).join("") + ndjson({ index: { _index: index, _id: "ok" } }, { message: NEWS_EN });
    const res = await rawBulk(h.url, "/_bulk?refresh=true", body);
    expect(res.body.errors).toBe(false);
    for (const [k, [id]] of texts.entries()) {
      expect(res.body.items[k]!.index).toMatchObject({ _id: id, status: 201, result: "created", neardup: { status: "unchecked", reason: expect.stringMatching(/^not fingerprinted, written as sent: message (has no visible|must not be empty|is empty|contains a lone surrogate|is 1000005 UTF-16 code units)/) } });
      const stored = await fetch(`${target.url}/${index}/_doc/${id}`).then((r) => r.text());
      expect(stored).toContain(`"n":1.0}`); // the client's bytes
      expect(stored).not.toContain('"neardup"');
    }
    expect(res.body.items[4]!.index).toMatchObject({ _id: "ok", status: 201, neardup: { status: "original" } });
    // Alone in its bulk, such an item still says so (the bulk was forwarded as sent, without the annotation).
    const alone = await rawBulk(h.url, "/_bulk", `{"index":{"_index":"${index}","_id":"alone"}}\n{"message":"\\u200b"}\n`);
    expect(alone.body.items[0]!.index).toMatchObject({ _id: "alone", status: 201, neardup: { status: "unchecked" } });
    // One id sent twice, first with a text neardup refuses: the engine ends with the second, as it would alone.
    const twice = `{"index":{"_index":"${index}","_id":"twice"}}\n{"message":"\\u200b","v":1}\n{"index":{"_index":"${index}","_id":"twice"}}\n${JSON.stringify({ message: RECIPE_EN, v: 2 })}\n`;
    const again = await rawBulk(h.url, "/_bulk?refresh=true", twice);
    expect(again.body.items.map((i) => i.index!.status)).toEqual([201, 200]);
    expect(await h.engine.get(index, "twice")).toMatchObject({ message: RECIPE_EN, v: 2, neardup: { status: "original" } });
  });

  it("a malformed action line gets the engine's own whole-request error and nothing is written", async () => {
    const index = name("mark");
    const body = ndjson({ index: { _index: index, _id: "1" } }, { message: NEWS_EN }, '{"index":{bad', { message: RECIPE_EN });
    const viaProxy = await rawBulk(h.url, "/_bulk", body);
    const direct = await rawBulk(target.url, "/_bulk", body);
    expect(viaProxy.status).toBe(400);
    expect(viaProxy.status).toBe(direct.status);
    expect(viaProxy.body.error!.type).toBe(direct.body.error!.type);
    expect(await h.engine.indexExists(index)).toBe(false);
  });

  it("a bulk with nothing to fingerprint is the engine's answer as sent: filter_path holds, deletes and other indices go through", async () => {
    const index = name("mark");
    const outside = `${prefix}-plain-${created.length}`;
    created.push(outside);
    await rawBulk(h.url, "/_bulk?refresh=true", ndjson({ index: { _index: index, _id: "1" } }, { message: NEWS_EN }));
    const body = ndjson({ delete: { _index: index, _id: "1" } }, { index: { _index: outside, _id: "p" } }, { message: NEWS_EN }, { update: { _index: index, _id: "none" } }, { doc: { host: "x" } });
    const res = await rawBulk(h.url, "/_bulk?refresh=true&filter_path=items.*.status", body);
    expect(res.status).toBe(200);
    // The engine's filter_path answer, not the proxy's whole one (took, errors, neardup verdicts).
    expect(res.body).toEqual({ items: [{ delete: { status: 200 } }, { index: { status: 201 } }, { update: { status: 404 } }] });
    expect(await h.engine.get(index, "1")).toBeUndefined();
    expect(await h.engine.get(outside, "p")).toBeDefined();
  });

  it("a path whose first segment starts with an underscore (/_all/_bulk) is a _bulk too: its items are fingerprinted (they went in without dedup)", async () => {
    const index = name("mark");
    const res = await rawBulk(h.url, "/_all/_bulk?refresh=true", ndjson({ index: { _index: index, _id: "u1" } }, { message: NEWS_EN }));
    expect(res.status).toBe(200);
    expect(res.body.items[0]!.index).toMatchObject({ _id: "u1", status: 201, neardup: { status: "original" } });
    expect(await h.engine.get(index, "u1")).toMatchObject({ neardup: { status: "original" } });
  });

  it("//_bulk is a _bulk, as the engines serve it, and an x-deflate body is decoded: their items are fingerprinted (black-box audit: both went in without dedup)", async () => {
    const index = name("mark");
    const slashes = await rawBulk(h.url, "//_bulk?refresh=true", ndjson({ index: { _index: index, _id: "s1" } }, { message: NEWS_EN }));
    expect(slashes.status).toBe(200);
    expect(slashes.body.items[0]!.index).toMatchObject({ _id: "s1", status: 201, neardup: { status: "original" } });
    const res = await fetch(`${h.url}/_bulk?refresh=true`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson", "content-encoding": "x-deflate" },
      body: deflateSync(ndjson({ index: { _index: index, _id: "s2" } }, { message: NEWS_EN })),
    });
    const deflated = (await res.json()) as { items: Record<string, Record<string, unknown>>[] };
    expect(res.status).toBe(200);
    expect(deflated.items[0]!.index).toMatchObject({ _id: "s2", neardup: { status: "duplicate", duplicate_of: "s1" } });
    expect(await h.engine.get(index, "s2")).toMatchObject({ neardup: { status: "duplicate" } });
    // Other paths starting with // are the engine's to answer, as they are without the proxy.
    const other = await fetch(`${h.url}//${index}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: ndjson({ index: { _id: "s3" } }, { message: NEWS_EN }) });
    const direct = await fetch(`${target.url}//${index}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: ndjson({ index: { _id: "s3" } }, { message: NEWS_EN }) });
    expect(other.status).toBe(direct.status);
  });

  it("comments and an escaped action key are read as the engines read them: those items are fingerprinted, and reject refuses their near-duplicates (black-box audit: written without dedup)", async () => {
    const index = name("reject");
    const action = (id: string) => JSON.stringify({ index: { _index: index, _id: id } });
    const source = JSON.stringify({ message: NEWS_EN });
    const first = await rawBulk(h.url, "/_bulk?refresh=true", `${action("c1")}\n${source}\n`);
    expect(first.body.items[0]!.index).toMatchObject({ status: 201, neardup: { status: "original" } });
    const bodies = [
      `${action("c2")} // a shipper's note\n${source}\n`,
      `/* before */ ${action("c3")}\n${source}\n`,
      `${action("c4")}\n{"message": ${JSON.stringify(NEWS_EN)} /* inside */}\n`,
      `{"\\u0069ndex":{"_index":"${index}","_id":"c5"}}\n${source}\n`,
    ];
    for (const body of bodies) {
      const res = await rawBulk(h.url, "/_bulk?refresh=true", body);
      expect(res.status).toBe(200);
      const item = Object.values(res.body.items[0]!)[0]!;
      expect(item).toMatchObject({ status: 409, neardup: { status: "duplicate", duplicate_of: "c1" } });
      expect(await h.engine.get(index, item._id as string)).toBeUndefined();
    }
  });

  it("a delete before the first write to a new index is the engine's not_found, not an index_not_found error (black-box audit)", async () => {
    const index = name("mark");
    const plain = `${prefix}-plain-${created.length}`;
    created.push(plain);
    const body = (into: string) => ndjson({ delete: { _index: into, _id: "X" } }, { index: { _index: into, _id: "Y" } }, { message: NEWS_EN });
    const viaProxy = await rawBulk(h.url, "/_bulk", body(index));
    const direct = await rawBulk(target.url, "/_bulk", body(plain));
    const shape = (r: typeof viaProxy) => [r.body.errors, ...r.body.items.map((i) => { const v = Object.values(i)[0]!; return [v.status, v.result, (v.error as { type?: string } | undefined)?.type]; })];
    expect(shape(viaProxy)).toEqual(shape(direct));
    expect(viaProxy.body.items[1]!.index).toMatchObject({ neardup: { status: "original" } });
  });

  it("text after an action line's object: a JSON value there is ignored, as both engines ignore it; anything else is a whole-request 400 and nothing is written (OpenSearch wrote it without dedup)", async () => {
    const index = name("reject");
    const action = (id: string) => JSON.stringify({ index: { _index: index, _id: id } });
    const source = JSON.stringify({ message: RECIPE_EN });
    await rawBulk(h.url, "/_bulk?refresh=true", `${action("t1")}\n${source}\n`);
    const value = await rawBulk(h.url, "/_bulk?refresh=true", `${action("t2")} {"note":1}\n${source}\n`);
    expect(value.body.items[0]!.index).toMatchObject({ status: 409, neardup: { status: "duplicate", duplicate_of: "t1" } });
    const junk = await rawBulk(h.url, "/_bulk?refresh=true", `${action("t3")} xyz\n${source}\n`);
    expect(junk.status).toBe(400);
    expect(junk.body.error!.type).toBe("x_content_parse_exception");
    for (const id of ["t2", "t3"]) expect(await h.engine.get(index, id)).toBeUndefined();
  });

  it("the index in the path, and pipeline, routing and require_alias are forwarded", async () => {
    const index = name("mark");
    const res = await rawBulk(h.url, `/${index}/_bulk?routing=r1&refresh=wait_for`, ndjson({ index: { _id: "a" } }, { message: NEWS_EN }));
    expect(res.body.items[0]!.index).toMatchObject({ _index: index, _id: "a", status: 201, neardup: { status: "original" } });
    const search = await fetch(`${target.url}/${index}/_search?routing=r1`).then((r) => r.json() as Promise<{ hits: { hits: { _id: string; _routing?: string }[] } }>);
    expect(search.hits.hits).toEqual([expect.objectContaining({ _id: "a", _routing: "r1" })]);
    const noPipeline = await rawBulk(h.url, `/${index}/_bulk?pipeline=neardup-no-such-pipeline`, ndjson({ index: { _id: "b" } }, { message: RECIPE_EN }));
    const item = noPipeline.status === 200 ? noPipeline.body.items[0]!.index! : (noPipeline.body as unknown as Record<string, unknown>);
    expect(JSON.stringify(item)).toMatch(/pipeline/);
    const alias = await rawBulk(h.url, `/_bulk?require_alias=true`, ndjson({ index: { _index: `${prefix}-mark-noalias`, _id: "c" } }, { message: OTHER_ZH }));
    expect(alias.body.items[0]!.index).toMatchObject({ status: 404, error: { type: expect.stringMatching(/index_not_found|alias/) } });
    expect(await h.engine.indexExists(`${prefix}-mark-noalias`)).toBe(false); // the proxy did not create it either
  });

  it("everything else passes through: GET /, HEAD /, cluster health, search, with the engine's headers", async () => {
    for (const [method, path] of [["GET", "/"], ["HEAD", "/"], ["GET", "/_cluster/health"], ["GET", "/_search?size=0"], ["GET", "/no-such-index-neardup/_doc/1"]] as const) {
      const viaProxy = await fetch(h.url + path, { method });
      const direct = await fetch(target.url + path, { method });
      expect(viaProxy.status, `${method} ${path}`).toBe(direct.status);
      expect(viaProxy.headers.get("x-elastic-product")).toBe(direct.headers.get("x-elastic-product"));
      expect(viaProxy.headers.get("content-type")).toBe(direct.headers.get("content-type"));
      if (method === "GET" && path === "/") expect(await viaProxy.json()).toEqual(await direct.json());
    }
    if (target.kind === "elasticsearch") {
      const client = new ElasticClient({ node: h.url });
      expect((await client.info()).version.number).toBe(target.version);
      await client.close();
    }
  });

  it("a _bulk whose body ends before its Content-Length gets a 400 in the engine's shape, and none of its documents is written (it was Node's empty 400)", async () => {
    const index = name("mark");
    const body = ndjson({ index: { _index: index, _id: "a" } }, { message: NEWS_EN }, { index: { _index: index, _id: "b" } }, { message: RECIPE_EN });
    const answer = await rawHttp(h.url, `POST /_bulk?refresh=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(body) + 100}\r\n\r\n${body}`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ status: 400, error: { type: "illegal_argument_exception", reason: expect.stringContaining("Content-Length") } });
    expect(await h.engine.indexExists(index)).toBe(false);
  });
});

describe.each(engineTargets())("_bulk proxy with the engine down, on $kind $version ($source)", (target) => {
  it("answers 503 in the engine's error shape, acknowledges nothing it did not write, and recovers", async () => {
    const { startTcpProxy } = await import("../helpers/tcp-proxy.js");
    const tcp = await startTcpProxy(target.url);
    const prefix = uniqueIndex("neardup-proxy-down");
    const h = await startProxyFor(target, `${prefix}*:message`, { engineUrl: tcp.url });
    const index = `${prefix}-logs`;
    try {
      const batch = (from: number) => ndjson(...[0, 1, 2].flatMap((k) => [{ index: { _index: index, _id: `d${from + k}` } }, { message: `${NEWS_EN} (copy ${from + k})` }]));
      const acked: string[] = [];
      const first = await rawBulk(h.url, "/_bulk", batch(0));
      expect(first.status).toBe(200);
      for (const item of first.body.items) if (item.index!.status === 201) acked.push(String(item.index!._id));
      expect(acked).toEqual(["d0", "d1", "d2"]);

      tcp.cut();
      const down = await rawBulk(h.url, "/_bulk", batch(3));
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("5");
      expect(down.body.error).toMatchObject({ type: "neardup_engine_unavailable_exception" });
      const passDown = await rawBulk(h.url, "/_bulk", ndjson({ delete: { _index: index, _id: "d0" } }));
      expect(passDown.status).toBe(503);
      const client = target.kind === "elasticsearch" ? new ElasticClient({ node: h.url, maxRetries: 0 }) : new OpenSearchClient({ node: h.url, maxRetries: 0 });
      await expect(client.helpers.bulk({ datasource: [{ message: RECIPE_EN }], onDocument: () => ({ index: { _index: index } }), retries: 0 } as never)).rejects.toThrow();
      await client.close();

      tcp.restore();
      const again = await rawBulk(h.url, "/_bulk?refresh=true", batch(3));
      expect(again.status).toBe(200);
      for (const item of again.body.items) if (item.index!.status === 201) acked.push(String(item.index!._id));
      await h.engine.refresh(index);
      for (const id of acked) expect(await h.engine.get(index, id), id).toBeDefined();
      expect(acked).toHaveLength(6);
    } finally {
      await h.engine.deleteIndex(index);
      await h.close();
      await tcp.close();
    }
  });
});
