import express, { type Express } from "express";
import type { Logger } from "pino";
import { NeardupError } from "../core/errors.js";
import type { Fingerprinter } from "../core/fingerprinter.js";
import type { DedupService } from "../service/dedup-service.js";
import { errorHandler } from "./errors.js";
import { openApiDocument } from "./openapi.js";
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
  /** The dedup service once the engine is ready, else `undefined` (the engine endpoints answer 503). */
  service?: () => DedupService | undefined;
}

/** The HTTP interface: health, readiness and metrics; the dedup API mounts under /v1. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use((req, res, next) => {
    const end = deps.metrics.httpDuration.startTimer();
    res.on("finish", () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? (res.statusCode === 404 ? "unmatched" : req.path);
      end({ method: req.method, route });
      deps.metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  });
  const bodyLimit = deps.bodyLimit ?? "10mb";
  app.use(express.json({ limit: bodyLimit }));

  app.get("/livez", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    const { ready, reason } = deps.readiness;
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not ready", reason });
  });
  app.get("/metrics", async (_req, res) => {
    res.set("Content-Type", deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  app.get("/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });
  if (deps.fingerprinter) app.use("/v1", analysisRoutes(deps.fingerprinter));
  if (deps.service) {
    const getService = deps.service;
    const readyService = (): DedupService => {
      const svc = getService();
      if (!svc) throw new NeardupError("ENGINE_UNAVAILABLE", `the engine is not ready yet (${deps.readiness.reason})`);
      return svc;
    };
    app.use("/v1", documentRoutes(readyService, { bodyLimit }));
    app.use("/v1", statsRoutes(readyService));
  }
  app.use(uiRoutes());
  app.use((req, _res, next) => {
    next(new NeardupError("NOT_FOUND", `no route ${req.method} ${req.path}`, { field: "path" }));
  });
  app.use(errorHandler(deps.logger));
  return app;
}
