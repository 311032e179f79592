/**
 * Load limits, applied to /v1: a token bucket per API key and global bounds
 * on requests being worked on and body bytes in flight. Each answers 429 with
 * Retry-After; a request refused for its rate costs no body parsing, one
 * refused for its body's bytes holds none of them, and a request with a body
 * is counted against the request bound once its body has arrived.
 */
import type { RequestHandler } from "express";
import { callerOf } from "./auth.js";
import { HttpError, INFLIGHT_BODY_TYPE } from "./errors.js";
import { hasBody } from "./http-guards.js";
import type { Metrics } from "./metrics.js";

/** Tokens refill continuously at `rate` per second up to `burst`; one request takes one token. */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes a token for `key`: 0 when granted, else the seconds until one is available. */
  take(key: string): number {
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= 10_000) this.prune(t);
      b = { tokens: this.burst, at: t };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return (1 - b.tokens) / this.rate;
  }

  /** Forgets buckets that have refilled (they behave exactly like new ones), so the map stays bounded. */
  private prune(t: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.rate >= this.burst) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** Longest a request body may go without a byte before it is answered 408 (NEARDUP_BODY_TIMEOUT_MS). */
export const BODY_IDLE_MS = 20_000;

export interface LimitOptions {
  /** Requests per second per caller; 0 disables the rate limit. */
  rateLimitRps: number;
  rateLimitBurst: number;
  maxConcurrent: number;
  /** Request body bytes in flight at once (counted as they arrive). */
  maxInflightBodyBytes: number;
}

/**
 * Per-key rate limit (runs after `authenticate`, which names the caller).
 * Without keys there is no caller to tell apart (a sidecar's clients all come
 * from 127.0.0.1), so only the global concurrency limits apply.
 */
export function rateLimit(options: LimitOptions, metrics: Metrics): RequestHandler {
  if (options.rateLimitRps <= 0) return (_req, _res, next) => next();
  const buckets = new TokenBuckets(options.rateLimitRps, options.rateLimitBurst);
  return (req, _res, next) => {
    const caller = callerOf(req);
    if (!caller?.authenticated) {
      next();
      return;
    }
    const who = caller.name;
    const wait = buckets.take(who);
    if (wait === 0) {
      next();
      return;
    }
    metrics.limitRejections.inc({ limit: "rate" });
    const seconds = Math.max(1, Math.ceil(wait));
    next(
      new HttpError("RATE_LIMITED", `rate limit of ${options.rateLimitRps} requests/s (burst ${options.rateLimitBurst}) exceeded for ${who}; retry in ${seconds} s`, {
        headers: { "Retry-After": String(seconds) },
      }),
    );
  };
}

/**
 * Bounds the requests in flight and the body bytes they bring (so many large
 * bodies at once cannot balloon memory, even ones that will be refused). Body
 * bytes are counted as they arrive, not by `Content-Length`: a connection that
 * announces a large body and sends nothing holds nothing. A request whose next
 * bytes would pass the budget while others hold some fails its body read with
 * 429 (the body parser reads off the rest and drops it). A request counts at
 * most the body limit (past it the parser answers 413 and drops the rest).
 *
 * A request takes its slot of `maxConcurrent` once its body has arrived (at
 * once when it has none): the slots bound the work in hand, and a request still
 * receiving its body is no work yet. When slots were taken on arrival, 64
 * connections trickling their bodies a byte at a time held every slot, and
 * every other client got 429 for as long as they kept at it (audit 18, F1).
 * A body that goes `bodyIdleMs` without a byte is answered 408 and its
 * connection closed (it held its bytes until Node's 300 s request timeout).
 * Slot and bytes are released when the answer is sent or the connection
 * closes; bytes read off after that are not counted.
 */
export function concurrencyLimit(options: LimitOptions & { bodyLimitBytes: number; bodyIdleMs?: number }, metrics: Metrics): RequestHandler {
  let inFlight = 0;
  let inFlightBytes = 0;
  const bodyIdleMs = options.bodyIdleMs ?? BODY_IDLE_MS;
  const fullMessage = `the service is handling ${options.maxConcurrent} requests already (NEARDUP_MAX_CONCURRENT); retry in 1 s`;
  // A plain error with a `type`, as the body parser's own are (it sets `status` on what the stream raises): errors.ts maps it to a 429.
  const refusal = (message: string) => Object.assign(new Error(message), { type: INFLIGHT_BODY_TYPE, status: 429 });
  const busy = () => refusal(`request bodies in flight would exceed ${options.maxInflightBodyBytes} bytes (NEARDUP_MAX_INFLIGHT_BODY); retry in 1 s`);
  const takeSlot = (): boolean => {
    if (inFlight >= options.maxConcurrent) {
      metrics.limitRejections.inc({ limit: "concurrency" });
      return false;
    }
    inFlight++;
    metrics.inFlight.set(inFlight);
    return true;
  };
  return (req, res, next) => {
    // Only the methods whose routes read a body wait for it (requireJson: anything else is 415 before any work);
    // another method's handler runs without reading it, and releases the slot when it answers.
    const bodyFirst = (req.method === "POST" || req.method === "PUT" || req.method === "PATCH") && hasBody(req.headers);
    let slot = false;
    if (!bodyFirst) {
      if (!takeSlot()) {
        next(new HttpError("RATE_LIMITED", fullMessage, { headers: { "Retry-After": "1" } }));
        return;
      }
      slot = true;
    }
    let mine = 0;
    let refused = false;
    let released = false;
    // A compressed body is piped into an inflate stream, which the body parser reads: a refusal goes there too.
    const pipes: NodeJS.WritableStream[] = [];
    const pipe = req.pipe.bind(req);
    req.pipe = (<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T => {
      pipes.push(destination);
      return pipe(destination, options);
    }) as typeof req.pipe;
    const emit = req.emit.bind(req);
    const refuse = (err: Error): boolean => {
      refused = true;
      stopIdle();
      for (const destination of pipes) (destination as NodeJS.WritableStream & { destroy(error: Error): void }).destroy(err);
      return emit("error", err);
    };
    let idle: NodeJS.Timeout | undefined;
    const stopIdle = (): void => {
      if (idle) clearTimeout(idle);
      idle = undefined;
    };
    const stalled = (): void => {
      idle = undefined;
      if (released || refused || req.complete) return;
      refused = true;
      metrics.limitRejections.inc({ limit: "body_idle" });
      // Answered here: the body parser waits for the rest of the body before it passes an error on, and none is coming.
      if (!res.headersSent) {
        res.status(408).set("Connection", "close").json({ error: { code: "REQUEST_TIMEOUT", message: `the request body stalled: no byte for ${bodyIdleMs} ms (NEARDUP_BODY_TIMEOUT_MS); nothing of it was read`, field: "body" } });
      }
      res.once("finish", () => req.socket.destroy());
    };
    const watchIdle = (): void => {
      stopIdle();
      if (bodyFirst && !slot && bodyIdleMs > 0) idle = setTimeout(stalled, bodyIdleMs).unref();
    };
    watchIdle();
    // Each chunk is counted as the body parser receives it ("data" is emitted only to a reader, as bytes arrive).
    req.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
      if (event === "end" && !slot && !released && !refused) {
        stopIdle();
        if (!takeSlot()) return refuse(refusal(fullMessage));
        slot = true;
        return emit(event, ...args);
      }
      if (event !== "data") return emit(event, ...args);
      if (refused) return false; // read off and dropped
      // Not counted: bytes after the answer (Node reads off a body nobody read), and bytes past the body
      // limit (the parser has answered 413 and reads them off); neither is held.
      if (released) return emit(event, ...args);
      watchIdle();
      const bytes = Math.max(0, Math.min((args[0] as Buffer).length, options.bodyLimitBytes - mine));
      // One request alone is always let in (its own size is bounded by the body limit).
      if (inFlightBytes - mine > 0 && inFlightBytes + bytes > options.maxInflightBodyBytes) {
        metrics.limitRejections.inc({ limit: "inflight_body" });
        return refuse(busy());
      }
      mine += bytes;
      inFlightBytes += bytes;
      return emit(event, ...args);
    }) as typeof req.emit;
    const release = (): void => {
      if (released) return;
      released = true;
      stopIdle();
      if (slot) inFlight--;
      inFlightBytes -= mine;
      mine = 0;
      metrics.inFlight.set(inFlight);
    };
    res.once("finish", release);
    res.once("close", release);
    req.once("error", release);
    next();
  };
}
