import { NeardupError } from "../core/errors.js";
import type { EngineKind } from "./types.js";

/** Removes user info from a URL so it can be logged or put in an error message. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = "";
      u.password = "";
    }
    return u.toString().replace(/\/$/, "");
  } catch {
    return "<invalid url>";
  }
}

/**
 * Removes credentials from free text (engine error reasons, client messages,
 * setting values) before it is logged or sent to a caller: the user info of
 * any URL (`scheme://user:pass@`, also in malformed URLs), and the value of any `Authorization`-style
 * credential (`Basic ...`, `Bearer ...`, `ApiKey ...`), wherever it appears;
 * plus any of the given secret values verbatim.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/@"']*@/gi, "$1<redacted>@")
    // `user:pass@` in a malformed URL (`http//u:p@host`, `u:p@host`).
    .replace(/(^|[\s/"'=,([])[^\s/@:"',()[\]]+:(?!\/\/)[^\s@"']*@/g, "$1<redacted>@")
    .replace(/\b(authorization|proxy-authorization|x-api-key|api[-_]?key)(["']?\s*[:=]\s*["']?)[^"'\s,;}]+(\s+[^"'\s,;}]+)?/gi, "$1$2<redacted>")
    .replace(/\b(basic|bearer|apikey)(\s+)[A-Za-z0-9+/=._~-]{6,}/gi, "$1$2<redacted>");
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join("<redacted>");
  }
  return out;
}

interface ClientErrorLike {
  name?: string;
  message?: string;
  meta?: { statusCode?: number; body?: unknown };
}

interface EngineErrorBody {
  error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[]; caused_by?: { type?: string; reason?: string } } | string;
  status?: number;
}

const UNAVAILABLE_NAMES = new Set(["ConnectionError", "TimeoutError", "NoLivingConnectionsError", "RequestAbortedError"]);

/** The engine's error type and reason from a response body, when it has them. */
export function describeEngineError(body: unknown): { type: string; reason: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { error } = body as EngineErrorBody;
  if (typeof error === "string") return { type: "error", reason: error };
  if (!error) return undefined;
  const cause = error.caused_by;
  const reason = error.reason ?? error.root_cause?.[0]?.reason ?? "no reason given";
  const withCause = cause?.reason && cause.reason !== reason ? `${reason} (caused by ${cause.type}: ${cause.reason})` : reason;
  return { type: error.type ?? error.root_cause?.[0]?.type ?? "unknown", reason: withCause };
}

/**
 * Turns anything a client threw into a NeardupError.
 * Connection failures, timeouts and 429/503 answers become ENGINE_UNAVAILABLE
 * (retryable); other engine answers become ENGINE_ERROR, or CONFLICT / NOT_FOUND
 * for 409 / 404. The message names the engine, the operation, the engine's
 * error type and reason, and never credentials: client messages can embed the
 * request URL, so only our own text and the redacted base URL are used.
 */
export function toEngineError(err: unknown, kind: EngineKind, operation: string, baseUrl: string): NeardupError {
  if (err instanceof NeardupError) return err;
  const e = (err ?? {}) as ClientErrorLike;
  // The client's own error carries the request (headers included) in `meta`:
  // keep only a plain summary as the cause so no log serialiser can leak auth.
  const cause = new Error(`${e.name ?? "Error"} (HTTP ${e.meta?.statusCode ?? "-"})`);
  const where = `${kind} at ${redactUrl(baseUrl)}`;
  const status = e.meta?.statusCode;
  if (e.name && UNAVAILABLE_NAMES.has(e.name)) {
    return new NeardupError("ENGINE_UNAVAILABLE", `${operation}: ${where} is unreachable (${e.name})`, {
      cause,
      details: { operation },
    });
  }
  const described = describeEngineError(e.meta?.body);
  // An engine or a proxy in front of it may echo request headers in its error text.
  const text = redactText(described ? `${described.type}: ${described.reason}` : `HTTP ${status ?? "?"} ${e.name ?? "error"}`);
  const details = { operation, status, engineErrorType: described?.type };
  if (status === 429 || status === 503) {
    return new NeardupError("ENGINE_UNAVAILABLE", `${operation}: ${where} is overloaded or not ready (${text})`, { cause, details });
  }
  if (status === 401 || status === 403) {
    return new NeardupError("ENGINE_ERROR", `${operation}: ${where} refused the credentials (${text})`, { cause, details });
  }
  const code = status === 409 ? "CONFLICT" : status === 404 ? "NOT_FOUND" : "ENGINE_ERROR";
  return new NeardupError(code, `${operation}: ${where} answered ${text}`, { cause, details });
}
