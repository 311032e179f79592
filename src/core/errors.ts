/**
 * One error type for the whole project, with a machine-readable code.
 *
 * Every code maps to one HTTP status in the server's error handler; messages
 * name the offending value (or field) and what was expected. Credentials never
 * appear in a message: callers pass redacted values only.
 */
export const ERROR_CODES = {
  /** Input text or a request field is malformed (wrong type, empty, lone surrogate...). */
  INVALID_INPUT: 400,
  /** Input is larger than the configured limit. */
  TOO_LARGE: 413,
  /** A named resource (document, index) does not exist. */
  NOT_FOUND: 404,
  /** The request conflicts with existing state (e.g. `reject` policy hit a duplicate, mapping conflict). */
  CONFLICT: 409,
  /** Configuration is invalid (unknown option, out-of-range value). */
  INVALID_CONFIG: 500,
  /** A persisted file (index snapshot, IDF table) is corrupt, truncated or of an unknown version. */
  CORRUPT_FILE: 422,
  /** The search engine answered with an error. */
  ENGINE_ERROR: 502,
  /** The search engine is unreachable, overloaded or not ready. */
  ENGINE_UNAVAILABLE: 503,
  /** Not done now, nothing acknowledged; the same request may succeed when sent again (a failed dependency, a writer handover). */
  RETRY: 503,
  /** neardup itself is at capacity (the analysis pool's queue is full); retry after the Retry-After delay. */
  OVERLOADED: 503,
  /** A local tool (Java, Maven) needed to start the embedded engine is missing or failed. */
  ENVIRONMENT: 500,
  /** A fault in neardup itself (logged with its stack); sending the same request again will not help. */
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface NeardupErrorOptions {
  /** The underlying error, kept for logs. */
  cause?: unknown;
  /** The request or config field at fault, e.g. `text` or `items[3].id`. */
  field?: string;
  /** Extra machine-readable details (never secrets). */
  details?: Record<string, unknown>;
}

export class NeardupError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: NeardupErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "NeardupError";
    this.code = code;
    this.field = options.field;
    this.details = options.details;
  }

  /** The HTTP status this error maps to. */
  get status(): number {
    return ERROR_CODES[this.code];
  }
}

export function isNeardupError(value: unknown): value is NeardupError {
  return value instanceof NeardupError;
}

/** Whether `value` is a NeardupError of `code` (e.g. an engine's `NOT_FOUND` for a missing index or document). */
export function hasErrorCode(value: unknown, code: ErrorCode): value is NeardupError {
  return value instanceof NeardupError && value.code === code;
}

/**
 * Why a `fetch` failed, in words a log or a client can act on: `connect ECONNREFUSED 127.0.0.1:19921`,
 * `other side closed (UND_ERR_SOCKET)`, `timed out`. Node's fetch throws `TypeError: fetch failed` and keeps
 * the reason in `cause`, so the class name alone ("did not answer (TypeError)") said nothing (audit 22a, F8).
 */
export function fetchFailureReason(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === "TimeoutError") return "timed out";
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const message = cause.message || (cause instanceof AggregateError ? cause.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join("; ") : "");
    if (message && typeof code === "string" && !message.includes(code)) return `${message} (${code})`;
    if (message) return message;
    if (typeof code === "string") return code;
  }
  return err.message ? `${err.name}: ${err.message}` : err.name;
}
