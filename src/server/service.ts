import { createServer as createHttpsServer } from "node:https";
import { createServer as createHttpServer, type Server } from "node:http";
import type { Logger } from "pino";
import { parseSize, type Config } from "../config/config.js";
import { hasErrorCode, isNeardupError } from "../core/errors.js";
import { createFingerprinter, type Fingerprinter } from "../core/fingerprinter.js";
import { loadIdfFile } from "../resources/idf-file.js";
import { loadVerdictFile } from "../resources/verdict-file.js";
import { DedupService } from "../service/dedup-service.js";
import { createDedupMetrics, type DedupMetrics } from "../service/metrics.js";
import { RecentWindows } from "../service/recent-windows.js";
import { connectEngine, installTemplates, redactUrl, type Engine, type EngineConnection } from "../engine/index.js";
import { randomUUID } from "node:crypto";
import { LEASE_INDEX as LEASE_INDEX_NAME, WriterLease, decidedByOtherApi, decidedElsewhere, givenWay, heldLeaseNamed, heldLeaseOver, logLeaseEvents } from "../service/writer-lease.js";
import { httpForwarder } from "./peer.js";
import { createOffloadingAnalyzer, type Analyzer } from "../workers/index.js";
import { redactText } from "../engine/errors.js";
import { AnalysisPrefetch } from "./prefetch.js";
import { createApp } from "./app.js";
import { drain } from "./drain.js";
import { onClientError, track, type ClientErrorAnswer, type Inflight } from "./client-error.js";
import { CircuitBreaker, withBreaker } from "./breaker.js";
import { withTiming } from "./engine-timing.js";
import { createMetrics, leaseEventCounter, registerPoolMetrics, type Metrics } from "./metrics.js";
import { Readiness } from "./readiness.js";
import { LeaseReadiness } from "./lease-readiness.js";

/** A started engine the service owns (the embedded OpenSearch). */
export interface OwnedEngine {
  url: string;
  /** The engine's process id, when it is a local process. */
  pid?: number | undefined;
  stop(): Promise<void>;
  /** Registers a listener for the engine process exiting (for restarts). */
  onExit?(listener: (code: number | null, signal: string | null) => void): void;
}

export interface ServiceDeps {
  logger: Logger;
  /** Starts the embedded engine when the config names none. */
  startLocalEngine: (local: Config["local"]) => Promise<OwnedEngine>;
  /** Pause between engine connection attempts. Default 2,000 ms. */
  retryDelayMs?: number;
  /** First pause before restarting a dead embedded engine; doubles up to `supervision.restartMaxMs`. Default 1,000 ms. */
  restartBaseMs?: number;
  /** Metrics registry to use (tests read it). Default a new one. */
  metrics?: Metrics;
}

export interface RunningService {
  /** Base URL of the HTTP server. */
  url: string;
  readiness: Readiness;
  metrics: Metrics;
  /** The dedup metrics (checks, duplicates, candidates...), shared with the `_bulk` proxy's services. */
  dedupMetrics: DedupMetrics;
  /** The recent-writes windows of the API's service and the `_bulk` proxy's: one budget, one gauge. */
  recentWindows: RecentWindows;
  /** Resolves once the engine is connected and templates installed (rejects if the service closes first). */
  engineReady: Promise<Engine>;
  /** The fingerprinter the API's service uses (its options, NEARDUP_IDF_FILE included): the `_bulk` proxy shares it. */
  fingerprinter(): Promise<Fingerprinter>;
  /** The service's analyzer (small work in the calling thread, large work and, with NEARDUP_WORKERS > 1, every write on the worker pool): the `_bulk` proxy shares it. */
  analyzer(): Analyzer;
  /**
   * Stops accepting, lets in-flight requests finish (up to the shutdown timeout), waits for `after` (the
   * `_bulk` proxy's close, whose requests use this analyzer and engine), then stops the analyzer and the engine.
   */
  close(after?: Promise<unknown>): Promise<void>;
}

const BREAKER_STATE = { closed: 0, open: 1, "half-open": 2 } as const;

/**
 * Starts the HTTP(S) server at once (liveness answers immediately, readiness 503),
 * then brings up the engine in the background: the embedded OpenSearch when no
 * URL is configured, else the configured one, retried until it answers; then
 * installs the templates and turns /readyz to 200. From then on a health probe
 * every few seconds drives /readyz, a circuit breaker guards engine calls, and
 * a dead embedded engine is restarted with exponential backoff.
 */
export async function startService(config: Config, deps: ServiceDeps): Promise<RunningService> {
  const { logger } = deps;
  const { supervision } = config;
  const readiness = new Readiness();
  const metrics = deps.metrics ?? createMetrics();
  const dedupMetrics = createDedupMetrics(metrics.registry);
  const recentWindows = new RecentWindows();
  if (config.lease && config.security.apiKeys.length > 0 && !config.lease.peerApiKey) {
    // Sidecars sharing an index check each other's forwarded writes like any client's (docs audit: every write
    // sent to a follower answered "send again" for ever, and nothing said why).
    logger.warn("API keys are on and NEARDUP_PEER_API_KEY is not set: writes this sidecar forwards to another that holds the writer lease will be refused (401); set it to a key with write scope");
  }
  // Read at start, so a missing or corrupt IDF file stops the service before it listens.
  const idf = config.idfFile === undefined ? undefined : await loadIdfFile(config.idfFile);
  const verdict = config.verdictFile === undefined ? undefined : await loadVerdictFile(config.verdictFile);
  let fingerprinterPromise: Promise<Fingerprinter> | undefined;
  const fingerprinterOptions = { maxTextLength: config.maxTextChars, ...(idf === undefined ? {} : { idf }), ...(verdict === undefined ? {} : { verdict }) };
  const fingerprinter = () => (fingerprinterPromise ??= createFingerprinter(fingerprinterOptions));
  // The one worker pool (NEARDUP_WORKERS threads, at least one): write requests, large texts, large comparisons.
  const analyzer = createOffloadingAnalyzer(fingerprinter, { workers: config.workers, options: fingerprinterOptions });
  registerPoolMetrics(metrics.registry, () => analyzer.load?.());
  const prefetch = new AnalysisPrefetch(analyzer);
  // Load the workers' dictionaries while the engine comes up (a few seconds on a busy machine).
  analyzer.warm().catch((err: unknown) => {
    if (!closed) logger.warn({ err: redactText(String(err)) }, "the analysis workers could not start; large texts will fail");
  });
  const breaker = new CircuitBreaker({
    failures: supervision.breakerFailures,
    openMs: supervision.breakerOpenMs,
    onStateChange: (state) => {
      metrics.breakerState.set(BREAKER_STATE[state]);
      logger.warn({ breaker: state }, `engine circuit breaker ${state}`);
    },
    onReject: () => metrics.breakerRejections.inc(),
  });
  for (const [limit, value] of Object.entries({
    max_text_chars: config.maxTextChars,
    max_bulk_items: config.dedup.maxBulkItems,
    max_candidates: config.dedup.maxCandidates,
    breaker_failures: supervision.breakerFailures,
    breaker_open_ms: supervision.breakerOpenMs,
    engine_probe_ms: supervision.probeIntervalMs,
    shutdown_timeout_ms: supervision.shutdownTimeoutMs,
  })) {
    metrics.limits.set({ limit }, value);
  }
  metrics.breakerState.set(0);
  metrics.engineUp.set(0);
  let dedup: DedupService | undefined;
  const app = createApp({
    logger,
    metrics,
    readiness,
    bodyLimit: config.bodyLimit,
    fingerprinter,
    analyzer,
    prefetch,
    service: () => dedup,
    apiKeys: config.security.apiKeys,
    corsOrigins: config.security.corsOrigins,
    limits: config.limits,
  });
  const tls = config.security.tls;
  const server = await listen(withClientErrors(tls ? createHttpsServer({ cert: tls.cert, key: tls.key }, app) : createHttpServer(app), logger), config.server.host, config.server.port);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.server.port;
  const url = `${tls ? "https" : "http"}://${config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host}:${port}`;
  logger.info({ url, apiKeys: config.security.apiKeys.length, tls: Boolean(tls) }, "neardup listening");

  let closed = false;
  let closing: Promise<void> | undefined;
  let owned: OwnedEngine | undefined;
  let engine: Engine | undefined;
  let lease: WriterLease | undefined;
  let restartAttempt = 0;
  let readyAt = 0;
  // /readyz stays 503 until this sidecar has once been able to take writes (audit 23, F1); the gauge shows the lease.
  const leaseReadiness = new LeaseReadiness(config.dedup.index, config.lease?.advertiseUrl ?? url, () => lease);
  if (config.lease) {
    readiness.setCondition(leaseReadiness.condition);
    metrics.leaseSources.add(() => {
      const state = lease?.status().state;
      return state === undefined ? [] : [{ lease: "api", index: config.dedup.index, held: state === "held" || state === "taking_over" }];
    });
  }

  const connectOnce = async (connection: EngineConnection): Promise<Engine> => {
    for (;;) {
      let made: DedupService | undefined;
      try {
        readiness.markNotReady(`connecting to ${redactUrl(connection.url)}`);
        const connected = withTiming(await connectEngine(connection), metrics.engineDuration);
        await installTemplates(connected);
        const svc = new DedupService(withBreaker(connected, breaker), prefetch.wrap(await fingerprinter()), config.dedup, dedupMetrics, logger, analyzer, recentWindows);
        made = svc;
        await svc.ensureIndex();
        if (closed) {
          await connected.close();
          throw new Error("service closed while connecting to the engine");
        }
        // A sidecar's _bulk proxy decides for this index, an index behind it or an alias of it (its lease
        // `proxy:<name>`): two writers would keep two originals. Read with the lease off too (audit 14, F7: one
        // API sidecar with NEARDUP_WRITER_LEASE=off and another's proxy both decided).
        const proxy = await heldLeaseOver(connected, config.dedup.index, "proxy:");
        if (proxy) throw decidedElsewhere(config.dedup.index, "_bulk proxy", proxy.url, "NEARDUP_INDEX");
        // With the lease off, any other sidecar's HTTP API holding a lease over these documents decides apart from this one.
        const apiWriter = config.lease ? undefined : await heldLeaseNamed(connected, config.dedup.index);
        if (apiWriter) throw decidedByOtherApi(config.dedup.index, apiWriter, true);
        if (config.lease) {
          const refreshMs = await svc.learnRefreshInterval();
          await connected.createIndex(LEASE_INDEX_NAME, { settings: { index: { auto_expand_replicas: "0-1" } } });
          leaseReadiness.note(lease);
          await lease?.stop(); // the engine came back: a fresh lease round
          lease = new WriterLease(
            connected,
            { index: config.dedup.index, holder: randomUUID(), url: config.lease.advertiseUrl ?? url, ttlMs: config.lease.ttlMs, refreshMs },
            httpForwarder({
              timeoutMs: config.engine?.requestTimeoutMs ?? 30_000,
              apiKey: config.lease.peerApiKey,
              analyze: config.lease.peerAnalyses ? (texts) => svc.analyzeForWrite(texts) : undefined,
              maxBodyBytes: parseSize(config.bodyLimit),
            }),
            logLeaseEvents(logger, { index: config.dedup.index }, leaseEventCounter(metrics, "api")),
          );
          await lease.start();
          const late = await givenWay(connected, lease, config.dedup.index, "proxy:");
          if (late) {
            lease = undefined;
            throw decidedElsewhere(config.dedup.index, "_bulk proxy", late.url, "NEARDUP_INDEX");
          }
          // Another sidecar's HTTP API over the same documents under another name (an alias of this index, the index
          // behind this alias) holds a lease of its own: both would decide (audit 19, F1). Read once this lease is
          // taken, so that of two started at once at least one sees the other.
          const other = await heldLeaseNamed(connected, config.dedup.index, "", config.dedup.index);
          if (other) {
            await lease.stop();
            lease = undefined;
            throw decidedByOtherApi(config.dedup.index, other, false);
          }
          svc.router = lease;
        }
        engine = connected;
        dedup = svc;
        breaker.recordSuccess();
        const name = `${connected.info.kind} ${connected.info.version}`;
        readiness.markReady(name);
        metrics.engineUp.set(1);
        readyAt = Date.now();
        readiness.watch(
          () => healthOf(connected, name, config.dedup.index),
          supervision.probeIntervalMs,
          (ok, reason) => {
            metrics.engineUp.set(ok ? 1 : 0);
            if (ok) breaker.recordSuccess();
            else logger.warn({ reason }, "engine health probe failed");
          },
          Math.min(supervision.probeIntervalMs, 5000),
        );
        logger.info({ engine: connected.info }, "engine ready");
        return connected;
      } catch (err) {
        // A service made and not taken: its watches stop, and its window leaves the sidecar's.
        if (made !== undefined && made !== dedup) made.stop();
        if (closed) throw err;
        const message = redactText(isNeardupError(err) ? err.message : String(err));
        const retryable = hasErrorCode(err, "ENGINE_UNAVAILABLE");
        readiness.markNotReady(isNeardupError(err) ? message : "engine error");
        // A setting the engine's state refuses (a window shorter than the refresh interval, rollover without a
        // template, an index whose _source is off): trying again would only repeat it. The service stops (main.ts).
        if (hasErrorCode(err, "INVALID_CONFIG")) throw err;
        logger.warn({ err: message }, retryable ? "engine not reachable yet, retrying" : "engine setup failed, retrying");
        await sleep(deps.retryDelayMs ?? 2000);
      }
    }
  };

  /** Starts the embedded engine; `why` (a restart's cause) stays in the readiness reason while it starts. */
  const startOwned = async (why?: string): Promise<EngineConnection> => {
    readiness.markNotReady(why ? `${why}: starting the embedded OpenSearch` : "starting the embedded OpenSearch");
    const started = await deps.startLocalEngine(config.local);
    if (closed) {
      await started.stop();
      throw new Error("service closed while the engine was starting");
    }
    owned = started;
    started.onExit?.((code, signal) => void onOwnedExit(started, code, signal));
    logger.info({ engine: started.url }, "embedded OpenSearch started");
    return { url: started.url };
  };

  /** The embedded engine died: mark not ready, then restart it with exponential backoff until it is back. */
  const onOwnedExit = async (which: OwnedEngine, code: number | null, signal: string | null): Promise<void> => {
    if (closed || which !== owned) return;
    readiness.stopWatching();
    readiness.markNotReady(`the embedded engine exited (code ${code}, signal ${signal})`);
    dedup?.stop();
    dedup = undefined;
    metrics.engineUp.set(0);
    const old = engine;
    engine = undefined;
    owned = undefined;
    // The writer lease renews against the dead engine until stopped; a restart starts a fresh round.
    leaseReadiness.note(lease);
    await lease?.stop().catch(() => undefined);
    lease = undefined;
    await old?.close().catch(() => undefined);
    if (Date.now() - readyAt > supervision.restartMaxMs) restartAttempt = 0;
    for (;;) {
      const delay = Math.min(supervision.restartMaxMs, (deps.restartBaseMs ?? 1000) * 2 ** restartAttempt);
      restartAttempt++;
      const exited = `the embedded engine exited (code ${code}, signal ${signal}); restart ${restartAttempt}`;
      readiness.markNotReady(`${exited} in ${delay} ms`);
      logger.error({ code, signal, attempt: restartAttempt, delayMs: delay }, "embedded engine exited unexpectedly; restarting");
      await sleep(delay);
      if (closed) return;
      metrics.engineRestarts.inc();
      try {
        await connectOnce(await startOwned(exited));
        logger.info({ attempt: restartAttempt }, "embedded engine restarted");
        return;
      } catch (err) {
        if (closed) return;
        logger.error({ err: redactText(isNeardupError(err) ? err.message : String(err)) }, "embedded engine restart failed");
        // The engine is back but refuses the setup (its index changed meanwhile): starting it again would not help,
        // and would start another. The service stays not ready with the reason (/readyz) until it is restarted.
        if (hasErrorCode(err, "INVALID_CONFIG")) return;
      }
    }
  };

  const bringUpEngine = async (): Promise<Engine> => connectOnce(config.engine ?? (await startOwned()));

  const engineReady = bringUpEngine();
  engineReady.catch((err: unknown) => {
    if (!closed) {
      const message = redactText(isNeardupError(err) ? err.message : String(err));
      logger.error({ err: message }, "engine could not be started");
      readiness.markNotReady(isNeardupError(err) ? message : "engine could not be started");
    }
  });

  return {
    url,
    readiness,
    metrics,
    dedupMetrics,
    recentWindows,
    engineReady,
    fingerprinter,
    analyzer: () => analyzer,
    close(after) {
      closing ??= (async () => {
        closed = true;
        readiness.stopWatching();
        readiness.markNotReady("shutting down");
        await drain(server, supervision.shutdownTimeoutMs, logger);
        // The proxy's requests in flight analyse on this pool and write through this engine: they finish first.
        await after?.catch(() => undefined);
        await analyzer.close();
        // Writes of unknown outcome are known to this holder only: they are let go once the engine shows them.
        if (lease) await dedup?.unknownWritesSettled(supervision.shutdownTimeoutMs);
        await lease?.stop();
        dedup?.stop();
        await engine?.close().catch(() => undefined);
        await owned?.stop();
        logger.info("neardup stopped");
      })();
      return closing;
    },
  };
}

/**
 * The health probe's reason: the cluster's health, and when it is red, the health of the sidecar's own index
 * (asked only then: one more cheap request). A red index of ours (a primary not assigned: its lookups and writes
 * fail) throws, so /readyz answers 503 naming it (audit 23, F2); a red cluster whose red indices are others' stays
 * ready, and so does one whose index of ours is missing (the next write creates it).
 */
export async function healthOf(engine: Pick<Engine, "health">, name: string, index: string): Promise<string> {
  const cluster = await engine.health();
  if (cluster !== "red") return `${name}, cluster ${cluster}`;
  const own = await engine.health(index);
  // Missing (deleted by a lifecycle policy, say): ready, since the next write re-creates it.
  if (own === "missing") return `${name}, cluster red (index ${index} missing: the next write creates it)`;
  if (own === "red") throw new Error(`index ${index} is red: a primary shard is not assigned, so its lookups and writes fail until the engine assigns it`);
  return `${name}, cluster red (index ${index} ${own})`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** API error codes for what Node's HTTP parser refuses (server/client-error.ts): the request never reached a route. */
const CLIENT_ERROR_CODES: Record<ClientErrorAnswer["kind"], string> = {
  short_body: "INVALID_INPUT",
  malformed: "INVALID_INPUT",
  headers_too_large: "TOO_LARGE",
  chunk_extensions_too_large: "TOO_LARGE",
  timeout: "REQUEST_TIMEOUT",
};

/** Answers the requests Node's parser refuses with the API's error body (`{"error": ...}`), not Node's empty 400. */
function withClientErrors(server: Server, logger: Logger): Server {
  const inflight: Inflight = new WeakMap();
  server.prependListener("request", (req, res) => track(inflight, req, res));
  server.on(
    "clientError",
    onClientError(inflight, (answer) => ({ body: JSON.stringify({ error: { code: CLIENT_ERROR_CODES[answer.kind], message: answer.reason, field: answer.kind === "headers_too_large" ? "headers" : "body" } }) }), logger, "api"),
  );
  return server;
}

function listen(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("listening", () => resolve(server));
    server.once("error", reject);
    server.listen(port, host);
  });
}
