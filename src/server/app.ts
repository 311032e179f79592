import { randomUUID } from "node:crypto";
import express, { Router, type Express } from "express";
import type { Logger } from "pino";
import type { ApiKey } from "../config/api-keys.js";
import { parseSize, type LimitsConfig } from "../config/config.js";
import { NeardupError } from "../core/errors.js";
import type { Fingerprinter } from "../core/fingerprinter.js";
import type { DedupService } from "../service/dedup-service.js";
import type { AnalysisPrefetch } from "./prefetch.js";
import { createOffloadingAnalyzer, type Analyzer } from "../workers/index.js";
import { authenticate, authorize } from "./auth.js";
import { bulkJsonBody, errorHandler, jsonBody } from "./errors.js";
import { cors, methodNotAllowed, requireJson } from "./http-guards.js";
import { BODY_IDLE_MS, concurrencyLimit, rateLimit } from "./limits.js";
import { openApiDocument } from "./openapi.js";
import { PEER_ROUTE } from "./peer.js";
import { analysisRoutes } from "./routes/analysis.js";
import { documentRoutes } from "./routes/documents.js";
import { statsRoutes } from "./routes/stats.js";
import { uiRoutes } from "./ui/index.js";
import type { Metrics } from "./metrics.js";
import type { Readiness } from "./readiness.js";

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  /** Largest accepted request body. Default `10mb`. */
  bodyLimit?: string;
  /** The fingerprinter (created once; engine-free endpoints need only this). */
  fingerprinter?: () => Promise<Fingerprinter>;
  /** Runs fingerprint/compare reports (large ones on the worker pool). Default: `createOffloadingAnalyzer` over `fingerprinter`, one worker thread started on first use. */
  analyzer?: Analyzer;
  /** Analyses the texts of /v1/check and /v1/search on the worker pool before the service runs (service built over `prefetch.wrap(fingerprinter)`). */
  prefetch?: AnalysisPrefetch;
  /** The dedup service once the engine is ready, else `undefined` (the engine endpoints answer 503). */
  service?: () => DedupService | undefined;
  /** API keys (hashed). Empty or absent: no authentication (the start-up check allows that only on loopback). */
  apiKeys?: readonly ApiKey[];
  /** Browser origins allowed by CORS. Default none. */
  corsOrigins?: readonly string[];
  /** Load limits; defaults as in src/config/settings.ts. */
  limits?: Partial<LimitsConfig>;
}

/** Defaults of the limits, the same as the settings' (src/config/settings.ts). */
const DEFAULT_LIMITS: LimitsConfig = {
  rateLimitRps: 1000,
  rateLimitBurst: 2000,
  maxConcurrent: 64,
  maxInflightBodyBytes: 64 * 1024 * 1024,
  compareEditMaxChars: 4000,
  timeSkewMs: 300_000,
  bodyIdleMs: BODY_IDLE_MS,
};

/** The OpenAPI path templates, each with a pattern matching the paths it stands for (`{id}`: one segment). */
const TEMPLATES = [...Object.keys(openApiDocument.paths), PEER_ROUTE]
  .map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}/*$`),
  }))
  // Literal paths first: `/v1/documents/_bulk` is not `/v1/documents/{id}`.
  .sort((a, b) => a.template.split("{").length - b.template.split("{").length);

/** The template of the API path `path` (`/v1/documents/{id}`), for logs: ids and texts never reach a log line; `unmatched` for others. */
export function routeTemplate(path: string): string {
  return TEMPLATES.find((t) => t.pattern.test(path))?.template ?? "unmatched";
}

/** A client's X-Request-Id taken as the request's id: a short token (anything else could forge log text). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths anyone may call without a key: probes, metrics and the API description. */
export const OPEN_PATHS = ["/livez", "/readyz", "/metrics", "/openapi.json"] as const;

/** Method lists by path template, from the OpenAPI document: the 405 answers and their `Allow`. */
function methodsByPath(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, item] of Object.entries(openApiDocument.paths)) out[path] = Object.keys(item);
  return out;
}

/**
 * The HTTP interface. Open: health, readiness, metrics, the OpenAPI document.
 * Under /v1, in this order and before any body is read: API key, scope, rate
 * limit, concurrency limit, Content-Type; then the JSON body and the routes.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  // Paths are case-sensitive, as the engines' and as the auth scopes (auth.ts `scopeFor`) read them.
  app.set("case sensitive routing", true);
  app.disable("x-powered-by");
  const limits: LimitsConfig = { ...DEFAULT_LIMITS, ...deps.limits };
  // Each request's id, for the log lines about it (audit 23, F6): the client's X-Request-Id when it is a plain
  // token, else a new one; echoed in the answer so a client can quote it.
  app.use((req, res, next) => {
    const given = req.headers["x-request-id"];
    const id = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.locals.route = routeTemplate(req.path);
    res.setHeader("X-Request-Id", id);
    next();
  });
  app.use((req, res, next) => {
    const end = deps.metrics.httpDuration.startTimer();
    res.on("finish", () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? (res.statusCode === 404 ? "unmatched" : res.statusCode === 405 ? "method_not_allowed" : req.path.startsWith("/v1/") ? "v1_refused" : req.path);
      end({ method: req.method, route });
      deps.metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  });
  app.use(cors(deps.corsOrigins ?? []));
  const bodyLimit = deps.bodyLimit ?? "10mb";
  const bodyLimitBytes = parseSize(bodyLimit);
  for (const [name, value] of Object.entries({
    rate_rps: limits.rateLimitRps,
    rate_burst: limits.rateLimitBurst,
    max_concurrent: limits.maxConcurrent,
    max_inflight_body_bytes: limits.maxInflightBodyBytes,
    body_bytes: bodyLimitBytes,
    compare_edit_max_chars: limits.compareEditMaxChars,
    time_skew_ms: limits.timeSkewMs,
    body_timeout_ms: limits.bodyIdleMs,
  })) {
    deps.metrics.limits.set({ limit: name }, value);
  }

  app.get("/livez", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    const { ready, reason, details } = deps.readiness.snapshot();
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not ready", reason, ...details });
  });
  app.get("/metrics", async (_req, res) => {
    res.set("Content-Type", deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  // Without keys nothing asks for one: a document that said otherwise had API fuzzers report every answer
  // given without a key as "authentication ignored" (audit 18, F6).
  const served = (deps.apiKeys ?? []).length > 0 ? openApiDocument : { ...openApiDocument, security: [] };
  app.get("/openapi.json", (_req, res) => {
    res.json(served);
  });

  // OPTIONS on a known path: 204 with `Allow`, before the routers (Express answered a matched route's OPTIONS
  // itself: 200, text/plain, an `Allow` without OPTIONS).
  const allowed = methodNotAllowed(methodsByPath());
  app.use((req, res, next) => {
    if (req.method === "OPTIONS") allowed(req, res, next);
    else next();
  });

  const v1 = Router({ caseSensitive: true });
  v1.use(authenticate(deps.apiKeys ?? [], (reason) => deps.metrics.authFailures.inc({ reason })));
  v1.use(authorize((reason) => deps.metrics.authFailures.inc({ reason })));
  v1.use(rateLimit(limits, deps.metrics));
  v1.use(concurrencyLimit({ ...limits, bodyLimitBytes }, deps.metrics));
  v1.use(requireJson(["/documents/_bulk"]));
  // A bulk's own JSON parser first: a repeated key or lossy number in one item fails that item alone (errors.ts).
  v1.use("/documents/_bulk", express.json({ limit: bodyLimit, verify: bulkJsonBody }));
  v1.use(express.json({ limit: bodyLimit, verify: jsonBody }));
  const analyzer = deps.analyzer ?? (deps.fingerprinter ? createOffloadingAnalyzer(deps.fingerprinter, { workers: 1 }) : undefined);
  if (analyzer) {
    v1.use(analysisRoutes(analyzer, { compareEditMaxChars: limits.compareEditMaxChars, onEditEstimated: () => deps.metrics.limitRejections.inc({ limit: "compare_edit" }) }));
  }
  if (deps.service) {
    const getService = deps.service;
    const readyService = (): DedupService => {
      const svc = getService();
      if (!svc) throw new NeardupError("ENGINE_UNAVAILABLE", `the engine is not ready yet (${deps.readiness.reason})`);
      return svc;
    };
    const prefetch = deps.prefetch;
    v1.use(statsRoutes(readyService));
    v1.use(documentRoutes(readyService, { bodyLimit, timeSkewMs: limits.timeSkewMs, ...(prefetch ? { prefetch: (texts) => prefetch.prefetch(texts) } : {}) }));
  }

  // New /v1 routers go above (v1.use), so they get the key, limits and body checks; then list them in openapi.ts.
  app.use("/v1", v1);
  app.use(uiRoutes());
  app.use(allowed);
  app.use((req, _res, next) => {
    next(new NeardupError("NOT_FOUND", `no route ${req.method} ${req.path}`, { field: "path" }));
  });
  app.use(errorHandler(deps.logger));
  return app;
}
