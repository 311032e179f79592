/**
 * Black-box audit 23 of the `_bulk` proxy, against the real engines: content encodings neither neardup nor the
 * engines decode. Forwarded as sent, `zstd` got a 503 "engine unreachable" (OpenSearch drops the connection)
 * and a body labelled `br` was stored without dedup or marker (both engines read it as plain NDJSON).
 */
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECIPE_EN, englishVariants } from "../fixtures/texts/near-duplicates.js";
import { authHeader, engineTargets, uniqueIndex } from "../helpers/engines.js";
import { indexNamer, ndjson, startProxyFor, type ProxyHarness } from "../helpers/proxy.js";


describe.each(engineTargets())("_bulk proxy, audit 23, on $kind $version ($source)", (target) => {
  let h: ProxyHarness;
  const prefix = uniqueIndex("neardup-a23");
  const { name, created } = indexNamer(prefix);
  const [textA, textB] = englishVariants(RECIPE_EN, 2) as [string, string];

  beforeAll(async () => {
    h = await startProxyFor(target, `${prefix}-reject-*:message:reject`);
  });
  afterAll(async () => {
    for (const index of created) await h.engine.deleteIndex(index);
    await h.close();
  });

  const bulk = async (url: string, body: Buffer | string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}/_bulk?refresh=true`, { method: "POST", headers: { "content-type": "application/x-ndjson", ...authHeader(target), ...headers }, body });
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => ({}))) as { error?: { type: string; reason: string }; items?: Record<string, { status: number }>[] } };
  };

  it("the engines decode neither br nor zstd: a real brotli body is refused as unparsable (the ground for refusing it, not decoding it)", async () => {
    const index = name("reject");
    const res = await bulk(target.url, brotliCompressSync(ndjson({ index: { _index: index, _id: "1" } }, { message: textA })), { "content-encoding": "br" });
    expect(res.status).toBe(400);
    expect(await h.engine.indexExists(index)).toBe(false);
  });

  it.each([
    ["zstd", (b: string) => Buffer.from(b)],
    ["br", (b: string) => brotliCompressSync(b)],
    ["br", (b: string) => Buffer.from(b)], // what the engines stored as plain NDJSON, undeduplicated
  ])("F3/F4: a _bulk sent as %s is refused with 415 naming the encoding, and nothing is written", async (encoding, encode) => {
    const index = name("reject");
    const res = await bulk(h.url, encode(ndjson({ index: { _index: index, _id: "1" } }, { message: textA }, { index: { _index: index, _id: "2" } }, { message: textB })), { "content-encoding": encoding });
    expect(res.status).toBe(415);
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.body.error).toMatchObject({ type: "neardup_unsupported_content_encoding_exception" });
    expect(res.body.error!.reason).toContain(`Content-Encoding [${encoding}]`);
    expect(await h.engine.indexExists(index)).toBe(false);
  });

  it("F3/F4: gzip is still decoded and deduplicated", async () => {
    const index = name("reject");
    const res = await bulk(h.url, gzipSync(ndjson({ index: { _index: index, _id: "1" } }, { message: textA }, { index: { _index: index, _id: "2" } }, { message: textB })), { "content-encoding": "gzip" });
    expect(res.status).toBe(200);
    expect(res.body.items!.map((item) => Object.values(item)[0]!.status)).toEqual([201, 409]);
  });
});
