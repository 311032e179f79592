import { isUtf8 } from "node:buffer";
import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "pino";
import { hasErrorCode, NeardupError, isNeardupError } from "../core/errors.js";
import { redactText } from "../engine/errors.js";
import { findLossyNumberIn, isLossy, lossyMessage } from "./json-numbers.js";
import { duplicateKeyMessage, findDuplicateKey } from "./json-keys.js";
import { walkJsonAll } from "./json-walk.js";

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** Statuses only the HTTP layer produces (the core's codes live in src/core/errors.ts). */
export const HTTP_ERROR_CODES = {
  /** No or an unknown API key. */
  UNAUTHORIZED: 401,
  /** The key lacks the scope the route needs. */
  FORBIDDEN: 403,
  /** The path exists, the method does not (the answer lists the allowed ones in `Allow`). */
  METHOD_NOT_ALLOWED: 405,
  /** The body's Content-Type or Content-Encoding is not one the route accepts. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A rate or concurrency limit was hit; `Retry-After` says when to try again. */
  RATE_LIMITED: 429,
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERROR_CODES;

/** An error of the HTTP layer itself, with the headers its answer needs (`Allow`, `Retry-After`, `WWW-Authenticate`). */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly field: string | undefined;
  readonly headers: Record<string, string>;

  constructor(code: HttpErrorCode, message: string, options: { field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = "HttpError";
    this.code = code;
    this.field = options.field;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return HTTP_ERROR_CODES[this.code];
  }
}

/** The `type` of the error limits.ts raises on a request's body stream when the in-flight budget refuses its next bytes. */
export const INFLIGHT_BODY_TYPE = "neardup.inflight.body";

interface HttpLayerError {
  name?: string;
  type?: string;
  status?: number;
  code?: string;
  message?: string;
  limit?: number;
  expose?: boolean;
  /** Where in the body the problem is (a lossy number's path). */
  field?: string;
  /** The body as read (body-parser's parse failures). */
  body?: unknown;
}

/** The scalar a body the JSON parser refused in strict mode holds, when it is JSON all the same (strict mode refuses scalars); undefined otherwise. */
function scalarJson(body: unknown): { value: unknown } | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return value === null || typeof value !== "object" ? { value } : undefined;
  } catch {
    return undefined;
  }
}

/** The error type of a body that is not valid UTF-8 ({@link utf8Only}). */
const NOT_UTF8_TYPE = "neardup.body.not_utf8";

/**
 * body-parser's `verify` hook: refuses a body whose bytes are not valid UTF-8. body-parser decodes leniently,
 * replacing each invalid byte with U+FFFD, so ids `bad\xff` and `bad\xfe` both became `bad\uFFFD` (one document,
 * the first acknowledged one overwritten) and texts changed without a word. RFC 8259 JSON is UTF-8.
 */
export function utf8Only(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error("request body is not valid UTF-8"), { type: NOT_UTF8_TYPE, status: 400 });
}

/** The error type of a JSON body with a number it cannot carry as sent, or a key twice in one object ({@link jsonBody}): a 400 naming where. */
const LOSSY_TYPE = "neardup.body.lossy_number";

/** body-parser's `verify` hook for JSON bodies: {@link utf8Only}, no number that parsing would alter (json-numbers.ts), and no key twice in one object (json-keys.ts). */
export function jsonBody(req: unknown, res: unknown, body: Buffer): void {
  utf8Only(req, res, body);
  const found = findLossyNumberIn(body);
  if (found) throw Object.assign(new Error(lossyMessage(found)), { type: LOSSY_TYPE, status: 400, field: found.path });
  const repeated = findDuplicateKey(body.toString("utf8"));
  if (repeated !== undefined) throw Object.assign(new Error(duplicateKeyMessage(repeated)), { type: LOSSY_TYPE, status: 400, field: repeated });
}

/** The items of a JSON bulk body refused by {@link bulkJsonBody}, by position; read by the bulk route. */
const refusedItems = new WeakMap<object, Map<number, NeardupError>>();

/** The items {@link bulkJsonBody} refused in this request's body (each answered with its own 400), by position. */
export function bulkItemErrors(req: object): ReadonlyMap<number, NeardupError> | undefined {
  return refusedItems.get(req);
}

/** The item a path of a JSON bulk body is in, and the path as the item errors name it (`[1].text` -> `items[1].text`); undefined outside any item. */
function itemOf(path: string): { position: number; field: string } | undefined {
  const m = /^(?:items)?\[(\d+)\]/.exec(path);
  return m ? { position: Number(m[1]), field: path.startsWith("items") ? path : `items${path}` } : undefined;
}

/**
 * {@link jsonBody} for `POST /v1/documents/_bulk`: a repeated key or a lossy number inside one item of a JSON
 * array (or `{"items": [...]}`) fails that item alone, named `items[1].text`, as on an NDJSON bulk; the others
 * are decided (audit 22a, F4: the whole bulk was refused, naming `[1].text`). One outside any item refuses the
 * body. The full walk runs only when the quick checks found something.
 */
export function bulkJsonBody(req: unknown, res: unknown, body: Buffer): void {
  utf8Only(req, res, body);
  const text = body.toString("utf8");
  if (findLossyNumberIn(body) === undefined && findDuplicateKey(text) === undefined) return;
  // What each flag was, in the order walkJsonAll gives the paths: a repeated key, or the literal of a lossy number.
  const flags: (string | undefined)[] = [];
  const paths = walkJsonAll(text, "", {
    key: (key, before) => before.has(key) && flags.push(undefined) > 0,
    number: (literal) => isLossy(literal) && flags.push(literal) > 0,
  });
  const items = new Map<number, NeardupError>();
  for (const [k, path] of paths.entries()) {
    const literal = flags[k];
    const item = itemOf(path);
    const field = item?.field ?? path;
    const message = literal === undefined ? duplicateKeyMessage(field) : lossyMessage({ path: field, literal });
    if (!item) throw Object.assign(new Error(message), { type: LOSSY_TYPE, status: 400, field });
    if (!items.has(item.position)) items.set(item.position, new NeardupError("INVALID_INPUT", message, { field }));
  }
  if (items.size > 0) refusedItems.set(req as object, items);
}

/** Errors body-parser, the router and zlib raise, mapped to our codes; undefined for anything else (a 500). */
function fromHttpLayer(err: HttpLayerError): NeardupError | HttpError | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  if (err.type === "entity.parse.failed") {
    // `null`, `1`, `"x"`: JSON, but no request of the API is one (they were called "not valid JSON").
    const scalar = scalarJson(err.body);
    if (scalar) return new NeardupError("INVALID_INPUT", `request body must be a JSON object or array, got ${JSON.stringify(scalar.value)}`, { field: "body" });
    return new NeardupError("INVALID_INPUT", `request body is not valid JSON: ${err.message}`, { field: "body" });
  }
  if (err.type === "entity.too.large") return new NeardupError("TOO_LARGE", `request body is larger than the limit of ${err.limit} bytes`, { field: "body" });
  if (err.type === "encoding.unsupported") {
    return new HttpError("UNSUPPORTED_MEDIA_TYPE", `${err.message}: send the body uncompressed, or with Content-Encoding gzip, deflate or br`, { field: "Content-Encoding" });
  }
  if (err.type === LOSSY_TYPE) return new NeardupError("INVALID_INPUT", err.message ?? "request body has a number JSON cannot carry as sent", { field: err.field ?? "body" });
  if (err.type === NOT_UTF8_TYPE) return new NeardupError("INVALID_INPUT", "request body is not valid UTF-8: send UTF-8 (invalid bytes would be replaced, and two ids could become one)", { field: "body" });
  if (err.type === "charset.unsupported") return new HttpError("UNSUPPORTED_MEDIA_TYPE", `${err.message}: send UTF-8`, { field: "Content-Type" });
  // The router could not percent-decode a path segment (`/v1/documents/%FF/duplicates`).
  if (err.name === "URIError" && err.status === 400) return new NeardupError("INVALID_INPUT", `the path is not valid percent-encoded UTF-8: ${err.message}`, { field: "path" });
  // zlib (or brotli) could not inflate a body sent with Content-Encoding gzip/deflate/br: the body is not what the header says.
  if (err.status === 400 && typeof err.code === "string" && (err.code.startsWith("Z_") || err.code.startsWith("ERR__ERROR") || err.code.startsWith("ERR_BROTLI"))) {
    return new NeardupError("INVALID_INPUT", `request body could not be decoded as its Content-Encoding says (${err.message})`, { field: "Content-Encoding" });
  }
  // limits.ts stopped the body's read: the bodies in flight would pass NEARDUP_MAX_INFLIGHT_BODY.
  if (err.type === INFLIGHT_BODY_TYPE) return new HttpError("RATE_LIMITED", err.message ?? "", { headers: { "Retry-After": "1" } });
  if (err.type === "request.aborted") return new NeardupError("INVALID_INPUT", "the client closed the request before its body was read", { field: "body" });
  if (err.type === "stream.encoding.set" || err.type === "stream.not.readable") return undefined;
  // Any other client error http-errors marks as safe to show.
  if (err.expose === true && typeof err.status === "number" && err.status >= 400 && err.status < 500) {
    return new NeardupError("INVALID_INPUT", `bad request: ${err.message}`, { field: "body" });
  }
  return undefined;
}

/**
 * What a log line about a request names (audit 23, F6): its method, its route as a template (`/v1/documents/{id}`,
 * never the path with ids in it; `unmatched` for a path no route has: app.ts), the status answered and the request id
 * (app.ts, echoed as `X-Request-Id`). No text, query or header.
 */
export function requestContext(req: Request, res: Response, status: number): { method: string; route: string; status: number; requestId?: string } {
  const locals = res.locals as { requestId?: unknown; route?: unknown };
  const route = typeof locals.route === "string" ? locals.route : "unmatched";
  const requestId = locals.requestId;
  return { method: req.method, route, status, ...(typeof requestId === "string" ? { requestId } : {}) };
}

/**
 * One handler maps error codes to HTTP statuses; unknown errors are 500 and logged.
 * Messages pass through `redactText` first: an engine (or a proxy in front of it)
 * may echo credentials in its error text, and none may reach a caller or a log.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = isNeardupError(err) || err instanceof HttpError ? err : fromHttpLayer(err as HttpLayerError);
    if (!known) {
      logger.error({ err: redactText(err instanceof Error ? (err.stack ?? err.message) : String(err)), ...requestContext(req, res, 500) }, "unhandled error");
      res.status(500).json({ error: { code: "INTERNAL", message: "internal error" } } satisfies ErrorBody);
      return;
    }
    if (res.headersSent) return;
    const message = redactText(known.message);
    if (known.status >= 500) logger.warn({ code: known.code, message, ...requestContext(req, res, known.status) }, "request failed");
    if (known instanceof HttpError) res.set(known.headers);
    if (hasErrorCode(known, "ENGINE_UNAVAILABLE")) {
      const after = known.details?.retryAfterSeconds;
      res.set("Retry-After", String(typeof after === "number" && after > 0 ? Math.ceil(after) : 5));
    }
    if (isNeardupError(known) && (known.code === "RETRY" || known.code === "OVERLOADED")) res.set("Retry-After", "1");
    const body: ErrorBody = { error: { code: known.code, message } };
    if (known.field) body.error.field = known.field;
    res.status(known.status).json(body);
  };
}
