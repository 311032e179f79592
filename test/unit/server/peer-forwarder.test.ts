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

  it("sends the documents alone when their analyses would take the body past the holder's limit, and with them when not (multi-sidecar audit: a 413 through a follower only)", async () => {
    const fp = await sharedFingerprinter();
    const bodies: number[] = [];
    const holder = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        bodies.push(Buffer.byteLength(body));
        const request = JSON.parse(body) as PeerRequest;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ items: request.items.map((i) => ({ result: { id: i.id, status: "original", action: "indexed", duplicate_of: null, distance: null, similarity: null, reason: null }, analysed: "analysis" in i })) }));
      });
    });
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
    try {
      const at = `http://127.0.0.1:${(holder.address() as AddressInfo).port}`;
      const docs = Array.from({ length: 20 }, (_, k) => parseDocInput({ id: `d${k}`, text: `第${k}篇：自然语言处理是计算机科学领域与人工智能领域中的一个重要方向，研究人与计算机之间用自然语言进行有效通信的理论和方法。`.repeat(8) }));
      const plain = Buffer.byteLength(JSON.stringify({ policy: "mark", items: docs.map((d) => ({ id: d.id, id_given: true, text: d.text, time: d.time })) }));
      const limit = plain * 1.2;
      const forward = httpForwarder({ timeoutMs: 5000, maxBodyBytes: limit, analyze: (texts) => Promise.resolve(texts.map(({ text }) => fp.analyze(text))) });
      expect(await forward(at, docs, "mark", undefined)).toHaveLength(20);
      expect(bodies[0]).toBeLessThanOrEqual(limit); // the analyses would have passed it: sent without them
      const roomy = httpForwarder({ timeoutMs: 5000, maxBodyBytes: plain * 100, analyze: (texts) => Promise.resolve(texts.map(({ text }) => fp.analyze(text))) });
      expect(await roomy(at, docs, "mark", undefined)).toHaveLength(20);
      expect(bodies[1]).toBeGreaterThan(limit); // with them
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });

  it("a holder that refuses the forward for its key (401, 403) is a configuration error naming NEARDUP_PEER_API_KEY, not 'send again' (docs audit: every write to a follower answered RETRY for ever)", async () => {
    for (const status of [401, 403]) {
      const holder = http.createServer((_req, res) => {
        res.statusCode = status;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ error: { code: "UNAUTHORIZED", message: "an API key is required" } }));
      });
      await new Promise<void>((r) => holder.listen(0, "127.0.0.1", r));
      try {
        const forward = httpForwarder({ timeoutMs: 5000 });
        await expect(forward(`http://127.0.0.1:${(holder.address() as AddressInfo).port}`, [parseDocInput({ id: "a", text: "a text" })], "mark", undefined)).rejects.toMatchObject({
          code: "INVALID_CONFIG",
          message: expect.stringMatching(new RegExp(`HTTP ${status}.*NEARDUP_PEER_API_KEY`)),
        });
      } finally {
        await new Promise((r) => holder.close(r));
      }
    }
  });

  it("a holder that has gone is named with the cause, not the JavaScript class (audit 22a, F8: 'did not answer (TypeError)')", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    const forward = httpForwarder({ timeoutMs: 5000 });
    const err = await forward(gone, [parseDocInput({ id: "g", text: "a text for a holder that has gone" })], "mark", undefined).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "RETRY" });
    expect((err as Error).message).toMatch(new RegExp(`^the writer sidecar at ${gone} did not answer \\(connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+\\); send again$`));
    // A holder that takes the connection and closes it: the socket's own words.
    const hangUp = http.createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => hangUp.listen(0, "127.0.0.1", r));
    const reset = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
    const closedErr = await forward(reset, [parseDocInput({ id: "h", text: "a text for a holder that hangs up" })], "mark", undefined).catch((e: unknown) => e);
    await new Promise((r) => hangUp.close(r));
    expect((closedErr as Error).message).toMatch(/did not answer \((other side closed \(UND_ERR_SOCKET\)|.*ECONNRESET.*)\); send again$/);
    expect((closedErr as Error).message).not.toMatch(/TypeError/);
  });
});
