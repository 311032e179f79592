/**
 * Entry point of `npm start`: reads the environment, starts the HTTP service
 * and, when no engine URL is configured, the embedded local OpenSearch.
 * Ctrl-C (SIGINT) or SIGTERM stops both cleanly: in-flight requests finish
 * (up to NEARDUP_SHUTDOWN_TIMEOUT_MS), then the engine stops last.
 */
import { configFromEnv } from "../config/env.js";
import { hasErrorCode, isNeardupError, type NeardupError } from "../core/errors.js";
import { redactText } from "../engine/errors.js";
import type { Engine } from "../engine/types.js";
import { startProxy } from "../proxy/index.js";
import { embeddedOpenSearch } from "./embedded.js";
import { createLogger } from "./logger.js";
import { leaseEventCounter } from "./metrics.js";
import { startService } from "./service.js";

async function main(): Promise<void> {
  const config = configFromEnv();
  const logger = createLogger(config.logLevel);
  let localUrl: string | undefined;
  const startEmbedded = embeddedOpenSearch(logger);
  const service = await startService(config, {
    logger,
    startLocalEngine: async (local) => {
      const node = await startEmbedded(local);
      localUrl = node.url;
      return node;
    },
  });
  // The `_bulk` proxy (docs/proxy.md), on its own port once the engine is up.
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  if (config.proxy) {
    const proxyConfig = config.proxy;
    let engine: Engine | undefined;
    service.engineReady.then(
      async (connected) => {
        engine = connected;
        proxy = await startProxy({
          host: config.server.host,
          port: proxyConfig.port,
          connection: config.engine ?? { url: localUrl! },
          rules: proxyConfig.rules,
          dedup: config.dedup,
          engine: () => engine,
          fingerprinter: service.fingerprinter,
          analyzer: service.analyzer,
          metrics: service.dedupMetrics,
          windows: service.recentWindows,
          maxInflightBytes: config.limits.maxInflightBodyBytes,
          timeSkewMs: config.limits.timeSkewMs,
          bodyIdleMs: config.limits.bodyIdleMs,
          forwardAnalyses: proxyConfig.forwardAnalyses,
          lease: config.lease && { ttlMs: config.lease.ttlMs, advertiseUrl: proxyConfig.advertiseUrl },
          logger,
          onLeaseEvent: leaseEventCounter(service.metrics, "proxy"),
          shutdownTimeoutMs: config.supervision.shutdownTimeoutMs,
        });
        const running = proxy;
        service.metrics.leaseSources.add(() => running.leases().map(({ index, held }) => ({ lease: "proxy", index, held })));
        if (proxyConfig.rules.length === 0) logger.warn("NEARDUP_PROXY_INDICES is empty: the proxy passes every index through untouched");
      },
      () => undefined,
    ).catch((err: unknown) => {
      logger.error({ err: String(err) }, "the _bulk proxy could not start");
      process.exit(1);
    });
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    const proxyClosed = proxy?.close();
    Promise.all([proxyClosed, service.close(proxyClosed)]).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: redactText(String(err)) }, "error while stopping");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  service.engineReady.then(
    () => logger.info({ url: service.url }, "ready: try curl " + service.url + "/readyz"),
    (err: unknown) => {
      if (!hasErrorCode(err, "INVALID_CONFIG")) return;
      const message = redactText(`${(err as NeardupError).code}: ${(err as NeardupError).message}`);
      logger.error({ err: message }, "neardup cannot run with this setup");
      console.error(`neardup failed to start: ${message}`);
      void Promise.resolve(service.close()).finally(() => process.exit(1));
    },
  );
}

main().catch((err: unknown) => {
  // A malformed setting can carry a password (NEARDUP_ENGINE_URL=http//user:pass@host): never echo one.
  const message = redactText(isNeardupError(err) ? `${err.code}: ${err.message}` : String(err), [process.env.NEARDUP_ENGINE_PASSWORD, process.env.NEARDUP_ENGINE_API_KEY]);
  console.error(`neardup failed to start: ${message}`);
  process.exit(1);
});
