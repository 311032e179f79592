import { Writable } from "node:stream";
import type { Express } from "express";
import { createFingerprinter, type Fingerprinter, type FingerprinterOptions } from "../../src/core/fingerprinter.js";
import { connectEngine, installTemplates, type Engine } from "../../src/engine/index.js";
import { createApp } from "../../src/server/app.js";
import { createLogger } from "../../src/server/logger.js";
import { createMetrics } from "../../src/server/metrics.js";
import { Readiness } from "../../src/server/readiness.js";
import { DedupService } from "../../src/service/dedup-service.js";
import { createDedupMetrics } from "../../src/service/metrics.js";
import { resolveDedupOptions, type DedupOptions } from "../../src/service/options.js";
import type { EngineTarget } from "./engine-targets.js";
import { uniqueIndex } from "./engines.js";

let shared: Promise<Fingerprinter> | undefined;
/** One fingerprinter per test process with default options (loading jieba takes about a second). */
export function sharedFingerprinter(): Promise<Fingerprinter> {
  return (shared ??= createFingerprinter());
}

export interface ApiHarness {
  app: Express;
  engine: Engine;
  service: DedupService;
  index: string;
  logs: string[];
  close(): Promise<void>;
}

/** The HTTP app wired to a real engine, on a fresh index, in process (supertest drives it). */
export async function startApi(
  target: EngineTarget,
  options: {
    dedup?: Partial<DedupOptions>;
    fingerprinter?: FingerprinterOptions;
    url?: string;
    bodyLimit?: string;
    /** Index name (default: a fresh `neardup-documents-api-*`, which the documents template matches). */
    index?: string;
    /** Runs before the service's ensureIndex, e.g. to create the index with the user's own mapping. */
    prepare?: (engine: Engine, index: string) => Promise<void>;
  } = {},
): Promise<ApiHarness> {
  const engine = await connectEngine({ url: options.url ?? target.url, username: target.username, password: target.password, maxRetries: 0, requestTimeoutMs: 10_000 });
  await installTemplates(engine);
  const fingerprinter = options.fingerprinter ? await createFingerprinter(options.fingerprinter) : await sharedFingerprinter();
  const index = options.index ?? uniqueIndex("neardup-documents-api");
  const metrics = createMetrics({ defaultMetrics: false });
  const service = new DedupService(engine, fingerprinter, resolveDedupOptions({ index, ...options.dedup }), createDedupMetrics(metrics.registry));
  await options.prepare?.(engine, index);
  await service.ensureIndex();
  const readiness = new Readiness();
  readiness.markReady();
  const logs: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, cb) => (logs.push(String(chunk)), cb()) });
  const app = createApp({
    logger: createLogger("info", sink),
    metrics,
    readiness,
    bodyLimit: options.bodyLimit ?? "1mb",
    fingerprinter: async () => fingerprinter,
    service: () => service,
  });
  return {
    app,
    engine,
    service,
    index,
    logs,
    async close() {
      await engine.deleteIndex(index).catch(() => undefined);
      await engine.close();
    },
  };
}
