import type { Server } from "node:http";
import type { Logger } from "pino";
import type { Config } from "../config/config.js";
import { isNeardupError } from "../core/errors.js";
import { createFingerprinter, type Fingerprinter } from "../core/fingerprinter.js";
import { DedupService } from "../service/dedup-service.js";
import { createDedupMetrics } from "../service/metrics.js";
import { connectEngine, installTemplates, redactUrl, type Engine, type EngineConnection } from "../engine/index.js";
import { createApp } from "./app.js";
import { createMetrics } from "./metrics.js";
import { Readiness } from "./readiness.js";

/** A started engine the service owns (the embedded OpenSearch). */
export interface OwnedEngine {
  url: string;
  stop(): Promise<void>;
}

export interface ServiceDeps {
  logger: Logger;
  /** Starts the embedded engine when the config names none. */
  startLocalEngine: (local: Config["local"]) => Promise<OwnedEngine>;
  /** Pause between engine connection attempts. Default 2,000 ms. */
  retryDelayMs?: number;
}

export interface RunningService {
  /** Base URL of the HTTP server. */
  url: string;
  readiness: Readiness;
  /** Resolves once the engine is connected and templates installed (rejects if the service closes first). */
  engineReady: Promise<Engine>;
  close(): Promise<void>;
}

/**
 * Starts the HTTP server at once (liveness answers immediately, readiness 503),
 * then brings up the engine in the background: the embedded OpenSearch when no
 * URL is configured, else the configured one, retried until it answers; then
 * installs the templates and turns /readyz to 200.
 */
export async function startService(config: Config, deps: ServiceDeps): Promise<RunningService> {
  const { logger } = deps;
  const readiness = new Readiness();
  const metrics = createMetrics();
  const dedupMetrics = createDedupMetrics(metrics.registry);
  let fingerprinterPromise: Promise<Fingerprinter> | undefined;
  const fingerprinter = () => (fingerprinterPromise ??= createFingerprinter({ maxTextLength: config.maxTextChars }));
  let dedup: DedupService | undefined;
  const app = createApp({ logger, metrics, readiness, bodyLimit: config.bodyLimit, fingerprinter, service: () => dedup });
  const server = await listen(app, config.server.host, config.server.port);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.server.port;
  const url = `http://${config.server.host}:${port}`;
  logger.info({ url }, "neardup listening");

  let closed = false;
  let owned: OwnedEngine | undefined;
  let engine: Engine | undefined;

  const bringUpEngine = async (): Promise<Engine> => {
    let connection: EngineConnection | undefined = config.engine;
    if (!connection) {
      readiness.markNotReady("starting the embedded OpenSearch");
      owned = await deps.startLocalEngine(config.local);
      if (closed) {
        await owned.stop();
        throw new Error("service closed while the engine was starting");
      }
      connection = { url: owned.url };
      logger.info({ engine: owned.url }, "embedded OpenSearch started");
    }
    for (;;) {
      try {
        readiness.markNotReady(`connecting to ${redactUrl(connection.url)}`);
        const connected = await connectEngine(connection);
        await installTemplates(connected);
        const svc = new DedupService(connected, await fingerprinter(), config.dedup, dedupMetrics, logger);
        await svc.ensureIndex();
        engine = connected;
        dedup = svc;
        readiness.markReady(`${connected.info.kind} ${connected.info.version}`);
        logger.info({ engine: connected.info }, "engine ready");
        return connected;
      } catch (err) {
        if (closed) throw err;
        const retryable = isNeardupError(err) && err.code === "ENGINE_UNAVAILABLE";
        readiness.markNotReady(isNeardupError(err) ? err.message : "engine error");
        logger.warn({ err: isNeardupError(err) ? err.message : String(err) }, retryable ? "engine not reachable yet, retrying" : "engine setup failed, retrying");
        await new Promise((r) => setTimeout(r, deps.retryDelayMs ?? 2000));
      }
    }
  };

  const engineReady = bringUpEngine();
  engineReady.catch((err: unknown) => {
    if (!closed) {
      logger.error({ err: isNeardupError(err) ? err.message : String(err) }, "engine could not be started");
      readiness.markNotReady(isNeardupError(err) ? err.message : "engine could not be started");
    }
  });

  return {
    url,
    readiness,
    engineReady,
    async close() {
      closed = true;
      readiness.markNotReady("shutting down");
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await stopped;
      await engine?.close();
      await owned?.stop();
      logger.info("neardup stopped");
    },
  };
}

function listen(app: ReturnType<typeof createApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}
