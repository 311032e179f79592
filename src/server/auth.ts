/**
 * API keys: `Authorization: ApiKey <key>` or `Authorization: Bearer <key>`.
 * Only the SHA-256 of each key is configured; a presented key is hashed and
 * looked up, and the hashes are compared in constant time. Keys are high-entropy
 * random strings (see docs/operations.md), so a fast hash is enough: there is
 * nothing to brute-force that a slow hash would protect.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import type { ApiKey, Scope } from "../config/api-keys.js";
import { HttpError } from "./errors.js";

/** Who made a request: a key's name, or the client address when no keys are configured. */
export interface Caller {
  name: string;
  scopes: readonly Scope[];
  /** Whether a key authenticated the caller (false in open mode). */
  authenticated: boolean;
}

const CALLER = Symbol("neardup.caller");

export function callerOf(req: Request): Caller | undefined {
  return (req as unknown as Record<symbol, Caller | undefined>)[CALLER];
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** The key from `Authorization: ApiKey <key>` / `Bearer <key>`, or undefined. */
export function presentedKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^(?:apikey|bearer)\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Identifies the caller. With no keys configured every caller is let in with
 * all scopes (the start-up check allows that only on loopback or when told to),
 * named by its address so rate limits still apply per client.
 */
export function authenticate(keys: readonly ApiKey[], onFailure: (reason: "missing" | "invalid") => void = () => undefined): RequestHandler {
  const hashes = keys.map((k) => ({ key: k, hash: Buffer.from(k.sha256, "hex") }));
  return (req, _res, next) => {
    let caller: Caller;
    if (hashes.length === 0) {
      caller = { name: `addr:${req.socket.remoteAddress ?? "unknown"}`, scopes: ["admin"], authenticated: false };
    } else {
      const key = presentedKey(req.headers.authorization);
      if (key === undefined) {
        onFailure("missing");
        const problem = req.headers.authorization ? "the Authorization header must be `ApiKey <key>` or `Bearer <key>`" : "this endpoint needs an API key";
        next(new HttpError("UNAUTHORIZED", problem, { field: "Authorization", headers: { "WWW-Authenticate": 'ApiKey realm="neardup", Bearer realm="neardup"' } }));
        return;
      }
      const digest = sha256(key);
      // Compare with every configured hash so the time taken does not depend on which one matched.
      let found: ApiKey | undefined;
      for (const h of hashes) if (timingSafeEqual(h.hash, digest) && !found) found = h.key;
      if (!found) {
        onFailure("invalid");
        next(new HttpError("UNAUTHORIZED", "the API key is not valid", { field: "Authorization", headers: { "WWW-Authenticate": 'ApiKey realm="neardup", Bearer realm="neardup"' } }));
        return;
      }
      caller = { name: found.name, scopes: found.scopes, authenticated: true };
    }
    (req as unknown as Record<symbol, Caller>)[CALLER] = caller;
    next();
  };
}

/**
 * The scope a /v1 request needs: `write` for indexing (POST /documents,
 * /documents/_bulk, and /internal/documents, writes forwarded by another sidecar), `read` for everything else (check, search, stats,
 * fingerprint, compare, clusters). New write routes must be added here.
 */
export function scopeFor(method: string, path: string): Scope {
  // Lower-cased as well as the routers matching case-sensitively: /v1/DOCUMENTS once wrote with a read key.
  if (method === "POST" && /^\/(documents|documents\/_bulk|internal\/documents)\/?$/.test(path.toLowerCase())) return "write";
  return "read";
}

/** Refuses a caller whose key lacks the route's scope (`admin` has every scope). */
export function authorize(onFailure: (reason: "scope") => void = () => undefined, scopeOf: (req: Request) => Scope = (req) => scopeFor(req.method, req.path)): RequestHandler {
  return (req, _res, next) => {
    const caller = callerOf(req);
    const needed = scopeOf(req);
    if (!caller || caller.scopes.includes("admin") || caller.scopes.includes(needed)) {
      next();
      return;
    }
    onFailure("scope");
    next(new HttpError("FORBIDDEN", `the API key ${caller.name} lacks the ${needed} scope this endpoint needs`, { field: "Authorization" }));
  };
}
