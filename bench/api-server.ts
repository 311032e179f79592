/**
 * The HTTP API around a service, listening on a free loopback port: what the
 * benches send their requests to (over HTTP, as a client would).
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Fingerprinter } from "../src/core/fingerprinter.js";
import { createApp } from "../src/server/app.js";
import { createLogger } from "../src/server/logger.js";
import type { Metrics } from "../src/server/metrics.js";
import { Readiness } from "../src/server/readiness.js";
import type { DedupService } from "../src/service/dedup-service.js";

export async function listenApi(metrics: Metrics, fingerprinter: Fingerprinter, service: DedupService): Promise<{ url: string; server: Server }> {
  const readiness = new Readiness();
  readiness.markReady();
  const app = createApp({ logger: createLogger("warn"), metrics, readiness, fingerprinter: async () => fingerprinter, service: () => service });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
