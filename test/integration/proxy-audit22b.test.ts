/**
 * Black-box audit 22b of the `_bulk` proxy, against the real engines: content types the engines take that
 * neardup cannot read (SMILE) or that it read in one case only, indices it cannot prepare (closed, read-only),
 * and `X-Opaque-Id` on the answers the proxy makes itself.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECIPE_EN, englishVariants } from "../fixtures/texts/near-duplicates.js";
import { startApi } from "../helpers/api.js";
import { authHeader, engineTargets, rawEngineRequest, uniqueIndex } from "../helpers/engines.js";
import { indexNamer, ndjson, startProxyFor, type ProxyHarness } from "../helpers/proxy.js";
import { PEER_PATH } from "../../src/proxy/peer.js";

type Item = Record<string, { status: number; error?: { type: string; reason: string }; neardup?: { status: string } }>;
interface BulkBody {
  errors: boolean;
  items: Item[];
  error?: { type: string; reason: string };
}


describe.each(engineTargets())("_bulk proxy, audit 22b, on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-a22b");
  const { name, created } = indexNamer(prefix);
  const [textA, textB] = englishVariants(RECIPE_EN, 2) as [string, string];

  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-mark-*:message,${prefix}-reject-*:message:reject`);
  });
  afterAll(async () => {
    for (const index of created) {
      // A blocked or closed index is made deletable again first.
      await rawEngineRequest(target, "POST", `/${index}/_open`).catch(() => undefined);
      // One block setting a request: the engine takes a change of a blocked index's settings that is only that.
      for (const block of ["read_only", "read_only_allow_delete"]) await rawEngineRequest(target, "PUT", `/${index}/_settings`, { [`index.blocks.${block}`]: null }).catch(() => undefined);
      await h.engine.deleteIndex(index);
    }
    await h.close();
  });

  const bulk = async (url: string, body: Buffer | string, headers: Record<string, string> = {}, path = "/_bulk") => {
    const res = await fetch(url + path, { method: "POST", headers: { "content-type": "application/x-ndjson", ...authHeader(target), ...headers }, body });
    // Not JSON (the engine's SMILE answer to a SMILE bulk): an empty body, so that the status is what fails.
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => ({}))) as BulkBody };
  };
  const only = (item: Item) => Object.values(item)[0]!;

  it("F1: a SMILE _bulk, which the engines take and neardup cannot read, is refused with 406 saying to send NDJSON, and nothing is written (audit 22b: forwarded as sent, a reject index stored both near-duplicates)", async () => {
    const index = name("reject");
    // The SMILE bytes made by the engine itself: each line of the bulk as a document, read back as SMILE.
    const scratch = name("smile-src");
    const objects = [{ index: { _index: index, _id: "1" } }, { message: textA }, { index: { _index: index, _id: "2" } }, { message: textB }];
    for (const [k, o] of objects.entries()) await rawEngineRequest(target, "PUT", `/${scratch}/_doc/${k}?refresh=true`, o);
    const parts: Buffer[] = [];
    for (const k of objects.keys()) {
      const res = await fetch(`${target.url}/${scratch}/_source/${k}?format=smile`, { headers: authHeader(target) });
      parts.push(Buffer.from(await res.arrayBuffer()), Buffer.from([0xff]));
    }
    const res = await bulk(h.url, Buffer.concat(parts), { "content-type": "application/smile" }, "/_bulk?refresh=true");
    expect(res.status).toBe(406);
    expect(res.body.error).toMatchObject({ type: "neardup_unsupported_content_type_exception" });
    expect(res.body.error!.reason).toMatch(/reads only JSON\/NDJSON bulk bodies.*send the bulk as application\/x-ndjson/);
    expect(await h.engine.indexExists(index)).toBe(false);
  });

  it("F1: a media type in capitals, which the engines read as NDJSON, is deduplicated (audit 22b: only lower case was read; any other went through as sent)", async () => {
    const index = name("reject");
    const body = ndjson({ index: { _index: index, _id: "1" } }, { message: textA }, { index: { _index: index, _id: "2" } }, { message: textB });
    const res = await bulk(h.url, body, { "content-type": "Application/X-NDJSON" }, "/_bulk?refresh=true");
    expect(res.status).toBe(200);
    expect(res.body.items.map((i) => only(i).status)).toEqual([201, 409]);
    expect(only(res.body.items[1]!).error!.type).toBe("neardup_duplicate_exception");
  });

  it("F1: a content type the engine refuses still gets the engine's own answer", async () => {
    const index = name("mark");
    const res = await fetch(`${h.url}/_bulk`, { method: "POST", headers: { "content-type": "text/plain", ...authHeader(target) }, body: ndjson({ index: { _index: index } }, { message: textA }) });
    const direct = await fetch(`${target.url}/_bulk`, { method: "POST", headers: { "content-type": "text/plain", ...authHeader(target) }, body: ndjson({ index: { _index: index } }, { message: textA }) });
    expect(res.status).toBe(direct.status);
    expect(await res.text()).toBe(await direct.text());
  });

  it.each([
    ["read_only", 403],
    ["read_only_allow_delete", 429],
  ])("F2: an index without neardup's mapping and a %s block gets the engine's own per-item %i, not a 503, and the other index of the bulk is deduplicated (audit 22b: put-mapping failed on the block, answered 503 for ever)", async (block, status) => {
    const blocked = name("mark");
    const healthy = name("mark");
    await rawEngineRequest(target, "PUT", `/${blocked}`, { settings: { index: { blocks: { [block]: true } } } });
    const both = await bulk(h.url, ndjson({ index: { _index: blocked, _id: "1" } }, { message: textA }, { index: { _index: healthy, _id: "1" } }, { message: textA }));
    expect(both.status).toBe(200);
    const [first, second] = both.body.items.map(only);
    expect(first).toMatchObject({ status, error: { type: "cluster_block_exception" } });
    expect(first!.neardup).toBeUndefined();
    expect(second).toMatchObject({ status: 201, neardup: { status: "original" } });
    // Alone in its request: still the engine's per-item answer, not a whole-request 503.
    const alone = await bulk(h.url, ndjson({ index: { _index: blocked, _id: "2" } }, { message: textB }));
    expect(alone.status).toBe(200);
    expect(only(alone.body.items[0]!)).toMatchObject({ status, error: { type: "cluster_block_exception" } });
    expect(alone.headers.get("retry-after")).toBeNull();
  });

  it("F3: a closed index gets the engine's per-item 400 index_closed_exception, new or written before it was closed (audit 22b: per-item 502 neardup_engine_error_exception)", async () => {
    const fresh = name("mark");
    await rawEngineRequest(target, "PUT", `/${fresh}`);
    await rawEngineRequest(target, "POST", `/${fresh}/_close`);
    const res = await bulk(h.url, ndjson({ index: { _index: fresh, _id: "1" } }, { message: textA }));
    expect(res.status).toBe(200);
    expect(only(res.body.items[0]!)).toMatchObject({ status: 400, error: { type: "index_closed_exception" } });
    expect(only(res.body.items[0]!).neardup).toBeUndefined();

    const used = name("mark");
    const first = await bulk(h.url, ndjson({ index: { _index: used, _id: "1" } }, { message: textA }));
    expect(only(first.body.items[0]!)).toMatchObject({ status: 201 });
    await rawEngineRequest(target, "POST", `/${used}/_close`);
    const again = await bulk(h.url, ndjson({ index: { _index: used, _id: "2" } }, { message: textB }));
    expect(again.status).toBe(200);
    expect(only(again.body.items[0]!)).toMatchObject({ status: 400, error: { type: "index_closed_exception" } });
  });

  it("F3: a chunk forwarded by another sidecar for a closed index is answered with the engine's per-item 400, as the proxy's own", async () => {
    const used = name("mark");
    await bulk(h.url, ndjson({ index: { _index: used, _id: "1" } }, { message: textA }));
    await rawEngineRequest(target, "POST", `/${used}/_close`);
    const doc = { op: "index", id: "2", idGiven: true, time: Date.now(), meta: "{}", source: { message: textB }, text: textB };
    const chunk = { index: used, policy: "mark", query: "", headers: authHeader(target), mayCreate: true, docs: [doc] };
    const res = await fetch(h.url + PEER_PATH, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(chunk) });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { items?: { status: number; error?: { type: string } }[] };
    expect(answer.items?.[0]).toMatchObject({ status: 400, error: { type: "index_closed_exception" } });
  });

  it("F5: the proxy's own _bulk answers echo X-Opaque-Id, as the engine's do (audit 22b: only bulks forwarded as sent had it)", async () => {
    const index = name("mark");
    const res = await bulk(h.url, ndjson({ index: { _index: index, _id: "1" } }, { message: textA }), { "x-opaque-id": "trace-42" });
    expect(res.status).toBe(200);
    expect(only(res.body.items[0]!).neardup).toMatchObject({ status: "original" });
    expect(res.headers.get("x-opaque-id")).toBe("trace-42");
    const refused = await bulk(h.url, Buffer.from([0x3a, 0x29, 0x0a]), { "content-type": "application/smile", "x-opaque-id": "trace-43" });
    expect(refused.status).toBe(406);
    expect(refused.headers.get("x-opaque-id")).toBe("trace-43");
  });
});

describe.each(engineTargets())("HTTP API on a read-only index, audit 22b, on $kind $version ($source)", (target) => {
  it("F2: POST /v1/documents into a read-only index is an engine error naming the block, not a retryable 503", async () => {
    const h = await startApi(target);
    try {
      await rawEngineRequest(target, "PUT", `/${h.index}/_settings`, { index: { blocks: { read_only: true } } });
      const res = await request(h.app).post("/v1/documents").set("Content-Type", "application/json").send({ text: "a document for a read-only index, long enough to fingerprint" });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe("ENGINE_ERROR");
      expect(res.body.error.message).toMatch(/cluster_block_exception.*read-only/);
      expect(res.headers["retry-after"]).toBeUndefined();
    } finally {
      await rawEngineRequest(target, "PUT", `/${h.index}/_settings`, { index: { blocks: { read_only: null } } }).catch(() => undefined);
      await h.close();
    }
  });
});
