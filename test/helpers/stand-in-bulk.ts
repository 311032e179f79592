/**
 * A stand-in engine for proxy unit tests: an HTTP server on a free port that
 * answers each `_bulk` body with `answer(body)` (JSON), and the proxy's
 * upstream to it. The BulkHandler's pass-through writes reach it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createUpstream, type Upstream } from "../../src/proxy/upstream.js";

export interface StandInBulk {
  upstream: Upstream;
  close(): Promise<void>;
}

export async function startStandInBulk(answer: (body: string) => unknown): Promise<StandInBulk> {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer(body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const upstream = createUpstream({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } as never);
  return {
    upstream,
    close: async () => {
      upstream.close();
      await new Promise((r) => server.close(r));
    },
  };
}
