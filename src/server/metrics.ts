import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { PoolLoad } from "../workers/index.js";

/** Prometheus metrics of one service instance (its own registry, so tests stay isolated). */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route">;
  /** The configured value of every limit (settings), by name. */
  limits: Gauge<"limit">;
  /** Requests refused by a limit: `rate`, `concurrency`, `inflight_body`, `compare_edit` (an estimate replaced the exact measure). */
  limitRejections: Counter<"limit">;
  /** /v1 requests in flight (bounded by NEARDUP_MAX_CONCURRENT). */
  inFlight: Gauge;
  /** Refused authentications and authorizations by reason (`missing`, `invalid`, `scope`). */
  authFailures: Counter<"reason">;
  /** 1 while the last engine health probe succeeded. */
  engineUp: Gauge;
  /** Circuit breaker state: 0 closed, 1 open, 2 half-open. */
  breakerState: Gauge;
  /** Engine calls refused fast while the breaker was open. */
  breakerRejections: Counter;
  /** Restarts of the embedded engine after it died. */
  engineRestarts: Counter;
  /** Writer lease events (acquired, lost, renewal late, error) by lease: `api` (the write API's) or `proxy` (the `_bulk` proxy's). */
  leaseEvents: Counter<"lease" | "event">;
  /** Engine calls' time by method and outcome (`ok`, or the error code), engine-timing.ts. */
  engineDuration: Histogram<"operation" | "outcome">;
  /** 1 while this sidecar holds an index's writer lease, else 0, by lease (`api`, `proxy`) and index; read at each scrape from {@link leaseSources}. */
  writerLeaseHeld: Gauge<"lease" | "index">;
  /** What `neardup_writer_lease_held` reads: each adds the leases it runs ({@link LeaseHeld}). */
  leaseSources: Set<() => LeaseHeld[]>;
}

/** One writer lease, for `neardup_writer_lease_held`. */
export interface LeaseHeld {
  lease: "api" | "proxy";
  index: string;
  held: boolean;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  const leaseSources = new Set<() => LeaseHeld[]>();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: "neardup_" });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({ name: "neardup_http_requests_total", help: "HTTP requests by method, route and status code.", labelNames: ["method", "route", "status"] as const, registers }),
    httpDuration: new Histogram({
      name: "neardup_http_request_duration_seconds",
      help: "HTTP request latency in seconds by method and route.",
      labelNames: ["method", "route"] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    limits: new Gauge({ name: "neardup_limit", help: "Configured value of each limit (rate_rps, rate_burst, max_concurrent, body_bytes, compare_edit_max_chars, time_skew_ms...).", labelNames: ["limit"] as const, registers }),
    limitRejections: new Counter({ name: "neardup_limit_hits_total", help: "Requests that hit a limit, by limit (rate, concurrency, inflight_body, compare_edit).", labelNames: ["limit"] as const, registers }),
    inFlight: new Gauge({ name: "neardup_http_in_flight", help: "/v1 requests in flight.", registers }),
    authFailures: new Counter({ name: "neardup_auth_failures_total", help: "Refused requests by reason (missing, invalid, scope).", labelNames: ["reason"] as const, registers }),
    engineUp: new Gauge({ name: "neardup_engine_up", help: "1 while the last engine health probe succeeded, else 0.", registers }),
    breakerState: new Gauge({ name: "neardup_engine_breaker_state", help: "Engine circuit breaker: 0 closed, 1 open, 2 half-open.", registers }),
    breakerRejections: new Counter({ name: "neardup_engine_breaker_rejections_total", help: "Engine calls failed fast while the circuit breaker was open.", registers }),
    engineRestarts: new Counter({ name: "neardup_engine_restarts_total", help: "Restarts of the embedded engine after it exited unexpectedly.", registers }),
    leaseEvents: new Counter({
      name: "neardup_lease_events_total",
      help: "Writer lease events by lease (api, proxy) and event (acquired, lost, renewal_late, error, predecessor_writes_running, predecessor_writes_unknown). A lost or late lease means writes moved to another sidecar or waited.",
      labelNames: ["lease", "event"] as const,
      registers,
    }),
    engineDuration: new Histogram({
      name: "neardup_engine_request_duration_seconds",
      help: "Engine calls' time in seconds by operation (the engine method: search, msearch, bulk, mget, termDocFrequencies...) and outcome (ok, or the error code).",
      labelNames: ["operation", "outcome"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    writerLeaseHeld: new Gauge({
      name: "neardup_writer_lease_held",
      help: "1 while this sidecar holds the writer lease of the index (it decides the index's writes), else 0 (another sidecar holds it, or none does: after a holder's crash, writes wait until its lease is taken over, NEARDUP_LEASE_TTL_MS + 1 s), by lease (api, proxy) and index.",
      labelNames: ["lease", "index"] as const,
      registers,
      collect() {
        this.reset();
        for (const source of leaseSources) for (const { lease, index, held } of source()) this.set({ lease, index }, held ? 1 : 0);
      },
    }),
    leaseSources,
  };
}

/**
 * The analysis pool's load, read at each scrape: texts in work or queued on the
 * threads and texts waiting for admission (`neardup_analysis_pool_texts`,
 * by `state`), and texts refused with OVERLOADED since the pool started.
 * Nothing is reported before the pool has started.
 */
export function registerPoolMetrics(registry: Registry, read: () => PoolLoad | undefined): void {
  new Gauge({
    name: "neardup_analysis_pool_texts",
    help: "Texts at the analysis pool, by state: in_work (on or queued for the worker threads, bounded by 1,024 a thread) or waiting (for admission beyond that).",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const load = read();
      if (!load) return;
      this.set({ state: "in_work" }, load.inWork);
      this.set({ state: "waiting" }, load.waiting);
    },
  });
  new Counter({
    name: "neardup_analysis_pool_refused_texts_total",
    help: "Texts the analysis pool refused (OVERLOADED: past the waiting bound, or waited too long) since it started.",
    registers: [registry],
    collect() {
      const load = read();
      if (!load) return;
      this.reset();
      this.inc(load.refused);
    },
  });
}

/** Counts a writer lease's event (`lease renewal late` becomes `renewal_late`) for `lease` (`api` or `proxy`). */
export function leaseEventCounter(metrics: Pick<Metrics, "leaseEvents">, lease: "api" | "proxy"): (event: string) => void {
  return (event) => metrics.leaseEvents.inc({ lease, event: event.replace(/^lease /, "").replace(/ /g, "_") });
}
