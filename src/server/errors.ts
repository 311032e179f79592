import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { NeardupError, isNeardupError } from "../core/errors.js";

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** Errors body-parser and express raise, mapped to our codes. */
function fromHttpLayer(err: { type?: string; status?: number; message?: string; limit?: number }): NeardupError | undefined {
  if (err.type === "entity.parse.failed") return new NeardupError("INVALID_INPUT", `request body is not valid JSON: ${err.message}`, { field: "body" });
  if (err.type === "entity.too.large") return new NeardupError("TOO_LARGE", `request body is larger than the limit of ${err.limit} bytes`, { field: "body" });
  if (err.type === "encoding.unsupported" || err.type === "charset.unsupported") {
    return new NeardupError("INVALID_INPUT", `request body encoding is not supported: ${err.message}`, { field: "body" });
  }
  return undefined;
}

/** One handler maps error codes to HTTP statuses; unknown errors are 500 and logged. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const known = isNeardupError(err) ? err : fromHttpLayer(err as never);
    if (!known) {
      logger.error({ err }, "unhandled error");
      res.status(500).json({ error: { code: "INTERNAL", message: "internal error" } } satisfies ErrorBody);
      return;
    }
    if (known.status >= 500) logger.warn({ code: known.code, message: known.message }, "request failed");
    if (known.code === "ENGINE_UNAVAILABLE") res.set("Retry-After", "5");
    if (known.code === "OVERLOADED") res.set("Retry-After", "1");
    const body: ErrorBody = { error: { code: known.code, message: known.message } };
    if (known.field) body.error.field = known.field;
    res.status(known.status).json(body);
  };
}
