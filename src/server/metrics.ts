import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

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
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
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
  };
}
