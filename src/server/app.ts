import express, { type Express } from "express";
import type { Logger } from "pino";
import { NeardupError } from "../core/errors.js";
import { errorHandler } from "./errors.js";
import type { Metrics } from "./metrics.js";
import type { Readiness } from "./readiness.js";

export interface AppDeps {
  logger: Logger;
  metrics: Metrics;
  readiness: Readiness;
  /** Largest accepted request body. Default `1mb`. */
  bodyLimit?: string;
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
  app.use(express.json({ limit: deps.bodyLimit ?? "1mb" }));

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
  app.use((req, _res, next) => {
    next(new NeardupError("NOT_FOUND", `no route ${req.method} ${req.path}`, { field: "path" }));
  });
  app.use(errorHandler(deps.logger));
  return app;
}
