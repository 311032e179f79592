/**
 * A write with a `beforeSend` check (the writer lease) leaves only after the check, and the engine client never
 * sends it again on its own (audit 19, F2: the clients resend a bulk after a 502-504 or a timeout, unchecked, so a
 * lease holder that lost its lease meanwhile could still write a stale decision). Both adapters, against a local
 * HTTP server that answers every `_bulk` 503 and counts them.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NeardupError } from "../../../src/core/errors.js";
import { ElasticsearchEngine } from "../../../src/engine/elasticsearch.js";
import { OpenSearchEngine } from "../../../src/engine/opensearch.js";
import type { Engine } from "../../../src/engine/types.js";

let server: Server;
let url = "";
let bulks = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url?.startsWith("/_bulk")) bulks++;
      res.writeHead(503, { "content-type": "application/json", "x-elastic-product": "Elasticsearch" });
      res.end(JSON.stringify({ error: { type: "unavailable_shards_exception", reason: "test" }, status: 503 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const engines: [string, () => Engine][] = [
  ["opensearch", () => new OpenSearchEngine({ url, maxRetries: 2 }, { kind: "opensearch", version: "2.19.0", major: 2, clusterName: "test" })],
  ["elasticsearch", () => new ElasticsearchEngine({ url, maxRetries: 2 }, { kind: "elasticsearch", version: "8.19.0", major: 8, clusterName: "test" })],
];

const operations = [{ index: { _index: "x", _id: "a" } }, { text: "a" }];

describe.each(engines)("%s adapter: bulk with beforeSend", (_kind, make) => {
  it("without a check the client resends a refused bulk (its maxRetries); with one it is sent once, after the check", async () => {
    const engine = make();
    try {
      bulks = 0;
      await expect(engine.bulk(operations)).rejects.toThrow();
      expect(bulks).toBe(3);
      bulks = 0;
      let checks = 0;
      await expect(engine.bulk(operations, { beforeSend: () => void checks++ })).rejects.toThrow();
      expect(bulks).toBe(1);
      expect(checks).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it("a check that throws stops the write before anything is sent, with its own error", async () => {
    const engine = make();
    try {
      bulks = 0;
      const lost = new NeardupError("RETRY", "this sidecar lost the writer lease before deciding; send again");
      await expect(
        engine.bulk(operations, {
          beforeSend: () => {
            throw lost;
          },
        }),
      ).rejects.toBe(lost);
      expect(bulks).toBe(0);
    } finally {
      await engine.close();
    }
  });
});
