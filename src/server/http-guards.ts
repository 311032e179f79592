/**
 * Checks on the shape of a request made before any handler runs: CORS (closed
 * unless origins are configured), the Content-Type of writes, and 405 for a
 * known path asked with the wrong method.
 */
import type { Request, RequestHandler } from "express";
import { NeardupError } from "../core/errors.js";
import { HttpError } from "./errors.js";

/**
 * CORS for the configured origins only. With none configured no CORS header
 * is ever sent, so a browser on another origin cannot read any answer, and the
 * strict Content-Type check below forces a preflight (which then fails) for
 * any cross-site write: a page can no longer POST `text/plain` to the sidecar.
 */
export function cors(origins: readonly string[]): RequestHandler {
  const any = origins.includes("*");
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin && (any || allowed.has(origin))) {
      res.set("Access-Control-Allow-Origin", any ? "*" : origin);
      res.vary("Origin");
      if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
        res.set("Access-Control-Allow-Methods", "GET, POST");
        res.set("Access-Control-Allow-Headers", "Authorization, Content-Type, Content-Encoding");
        res.set("Access-Control-Max-Age", "600");
        res.status(204).end();
        return;
      }
    }
    next();
  };
}

/** Whether the request carries a body (a length > 0, or a chunked one). */
export function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  if (headers["transfer-encoding"] !== undefined) return true;
  const length = headers["content-length"];
  return length !== undefined && length !== "0";
}

/**
 * Writes must say they are JSON (or NDJSON where `ndjson` lists the path):
 * anything else is 415 before the body is read. Media type parameters are
 * allowed, but a charset other than UTF-8 is a 415 too: JSON is UTF-8 (RFC
 * 8259), and body-parser would decode an NDJSON body as `latin1` and store
 * the garbled text.
 */
export function requireJson(ndjsonPaths: readonly string[] = []): RequestHandler {
  return (req, _res, next) => {
    if (req.method !== "POST" && req.method !== "PUT" && req.method !== "PATCH") {
      next();
      return;
    }
    const raw = req.headers["content-type"];
    if (raw === undefined && !hasBody(req.headers)) {
      next();
      return;
    }
    const type = (raw ?? "").split(";")[0]!.trim().toLowerCase();
    const ndjson = ndjsonPaths.includes(req.path);
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(raw ?? "")?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== "utf-8") {
      next(new HttpError("UNSUPPORTED_MEDIA_TYPE", `Content-Type charset must be utf-8, got ${JSON.stringify(charset.slice(0, 40))}`, { field: "Content-Type" }));
      return;
    }
    if (type === "application/json" || (ndjson && type === "application/x-ndjson")) {
      next();
      return;
    }
    const accepted = ndjson ? "application/json or application/x-ndjson" : "application/json";
    next(new HttpError("UNSUPPORTED_MEDIA_TYPE", `Content-Type must be ${accepted}, got ${raw === undefined ? "none" : JSON.stringify(raw.slice(0, 100))}`, { field: "Content-Type" }));
  };
}

/** A path template of the OpenAPI document (`/v1/documents/{id}/duplicates`) as a matcher. */
function templateRegex(template: string): RegExp {
  const pattern = template
    .split("/")
    .map((seg) => (/^\{[^}]+\}$/.test(seg) ? "[^/]+" : seg.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}/?$`);
}

/**
 * For a request no route took: 405 with `Allow` when the path is one of `paths`
 * (method lists by OpenAPI path template), else nothing (the 404 handler follows).
 * OPTIONS on a known path answers 204 with `Allow`.
 */
export function methodNotAllowed(paths: Record<string, readonly string[]>): RequestHandler {
  const table = Object.entries(paths).map(([template, methods]) => {
    const upper = methods.map((m) => m.toUpperCase());
    if (upper.includes("GET") && !upper.includes("HEAD")) upper.push("HEAD");
    return { regex: templateRegex(template), allow: upper.join(", ") };
  });
  return (req, res, next) => {
    const hit = table.find((t) => t.regex.test(req.path));
    if (!hit) {
      next();
      return;
    }
    if (req.method === "OPTIONS") {
      res.set("Allow", `${hit.allow}, OPTIONS`).status(204).end();
      return;
    }
    next(new HttpError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${req.path}; allowed: ${hit.allow}`, { field: "method", headers: { Allow: hit.allow } }));
  };
}

/** For a route that takes no query parameters: one sent is a 400 naming it (it was silently ignored, as a typo would be). */
export function noQuery(req: Request): void {
  const key = Object.keys(req.query as object)[0];
  if (key !== undefined) throw new NeardupError("INVALID_INPUT", `${key} is not a known parameter (this route takes none)`, { field: key });
}
