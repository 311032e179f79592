/**
 * A follower's forwarder sends its analyses with the documents (NEARDUP_PEER_ANALYSES); a lease holder of a
 * version before them refuses the unknown field, and then gets the documents alone, from then on.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedFingerprinter } from "../../helpers/api.js";
import { httpForwarder, type PeerRequest } from "../../../src/server/peer.js";
import { parseDocInput } from "../../../src/service/input.js";

describe("httpForwarder with analyses", () => {
  let server: http.Server;
  let url: string;
  const seen: PeerRequest[] = [];
  beforeAll(async () => {
    // An older holder: its internal route refuses any field it does not know.
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const request = JSON.parse(body) as PeerRequest;
        seen.push(request);
        res.setHeader("content-type", "application/json");
        const unknown = request.items.findIndex((i) => "analysis" in i);
        if (unknown >= 0) {
          res.statusCode = 400;
          res.end(JSON.stringify({ error: { code: "INVALID_INPUT", message: `items[${unknown}].analysis is not a known field`, field: `items[${unknown}].analysis` } }));
          return;
        }
        res.end(JSON.stringify({ items: request.items.map((i) => ({ result: { id: i.id, status: "original", action: "indexed", duplicate_of: null, distance: null, similarity: null, reason: null } })) }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it("sends the documents alone to a holder that refuses the analyses, then and afterwards", async () => {
    const fp = await sharedFingerprinter();
    const forward = httpForwarder({ timeoutMs: 5000, analyze: (texts) => Promise.resolve(texts.map(({ text }) => fp.analyze(text))) });
    const docs = [parseDocInput({ id: "a", text: "a text forwarded to an older holder" })];
    expect(await forward(url, docs, "mark", undefined)).toMatchObject([{ id: "a", status: "original" }]);
    expect(seen.map((r) => "analysis" in r.items[0]!)).toEqual([true, false]);
    expect(await forward(url, docs, "mark", undefined)).toMatchObject([{ id: "a", status: "original" }]);
    expect(seen.map((r) => "analysis" in r.items[0]!)).toEqual([true, false, false]);
  });
});
