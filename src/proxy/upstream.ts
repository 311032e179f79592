/**
 * Plain HTTP to the engine, for what the proxy forwards: whole requests
 * streamed through (everything but `_bulk`), and `_bulk` bodies it builds.
 * The client's own headers (its credentials included) go to the engine; the
 * proxy adds none of neardup's, so a client has exactly the rights it would
 * have talking to the engine directly.
 */
import http from "node:http";
import https from "node:https";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { NeardupError } from "../core/errors.js";
import { redactUrl } from "../engine/errors.js";
import type { EngineConnection } from "../engine/types.js";

/** Headers that belong to one hop and are never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host"]);

export interface Upstream {
  readonly base: URL;
  /** For messages: the base URL without credentials. */
  readonly shown: string;
  /** neardup's own requests to the engine (its `_bulk` writes, its checks). */
  request(options: http.RequestOptions): http.ClientRequest;
  /**
   * Clients' requests passed through, on sockets of their own: however long clients hold theirs (a slow engine
   * answer, a download read slowly), neardup's writes always have sockets (audit 24, F1).
   */
  pass(options: http.RequestOptions): http.ClientRequest;
  close(): void;
}

/** Sockets to the engine, for neardup's own requests and for pass-through ones, each. */
const MAX_SOCKETS = 64;

export function createUpstream(connection: EngineConnection): Upstream {
  const base = new URL(connection.url);
  base.username = "";
  base.password = "";
  const secure = base.protocol === "https:";
  const makeAgent = () =>
    secure
      ? new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, ...(connection.caCert ? { ca: connection.caCert } : {}) })
      : new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  const own = makeAgent();
  const passing = makeAgent();
  const prefix = base.pathname.replace(/\/$/, "");
  const requestOn = (agent: http.Agent, options: http.RequestOptions) => {
    const o = { ...options, agent, protocol: base.protocol, hostname: base.hostname, port: base.port || (secure ? 443 : 80), path: prefix + (options.path ?? "/") };
    return secure ? https.request(o) : http.request(o);
  };
  return {
    base,
    shown: redactUrl(connection.url),
    request: (options) => requestOn(own, options),
    pass: (options) => requestOn(passing, options),
    close: () => {
      own.destroy();
      passing.destroy();
    },
  };
}

/** Request headers to send upstream: the client's, less hop-by-hop ones and the ones named in `drop`. */
export function forwardHeaders(headers: IncomingHttpHeaders, drop: readonly string[] = []): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  return forwardHeaders(headers);
}

/** Errors of a connection that was never made: nothing of the request reached the engine. */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * The engine could not be reached (refused, reset, timed out). Unless the connection was never made, the
 * request may have reached it: `details.outcomeUnknown` (engine/errors.ts `outcomeUnknown`).
 */
export class UpstreamDown extends NeardupError {
  /**
   * The engine took the connection and closed it without an answer (ECONNRESET, EPIPE): it is up, and it dropped
   * this request (e.g. a body that is not the gzip its `Content-Encoding` says). Not an outage.
   */
  readonly dropped: boolean;

  constructor(shown: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException)?.code;
    super("ENGINE_UNAVAILABLE", `the engine at ${shown} is unreachable (${code ?? String(cause)})`, { cause, details: { outcomeUnknown: code === undefined || !NOT_CONNECTED.has(code) } });
    this.dropped = code === "ECONNRESET" || code === "EPIPE";
  }
}

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One buffered request; rejects with {@link UpstreamDown} when the engine cannot be reached. */
export function send(upstream: Upstream, options: { method: string; path: string; headers: Record<string, string | string[]>; body?: Buffer; timeoutMs?: number }): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined) headers["content-length"] = String(options.body.length);
    const req = upstream.request({ method: options.method, path: options.path, headers });
    if (options.timeoutMs !== undefined) req.setTimeout(options.timeoutMs, () => req.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    req.on("error", (err) => reject(new UpstreamDown(upstream.shown, err)));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (err) => reject(new UpstreamDown(upstream.shown, err)));
      res.on("end", () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.end(options.body);
  });
}

export interface PassThroughOptions {
  /** Longest the client's body may go without a byte while it is read (0: no limit); then `onStalled`. */
  bodyIdleMs: number;
  /** The body stalled before the engine answered: the caller answers (408) and closes the connection. */
  onStalled: () => void;
}

/**
 * Streams a client request to the engine and the engine's answer back, status, headers and body as they are.
 * When the client goes away before the whole answer was sent, the engine request and its answer are dropped,
 * which gives its socket back: an answer left unread held it for good, and 64 abandoned downloads took every
 * socket the proxy had (audit 24, F1). A body that stalls for `bodyIdleMs` is `onStalled` (not while the engine
 * is not reading it yet: that pause is the proxy's, not the client's).
 */
export function pipeThrough(upstream: Upstream, req: IncomingMessage, res: ServerResponse, onDown: (err: UpstreamDown) => void, path = req.url, options?: PassThroughOptions): void {
  const out = upstream.pass({ method: req.method, path, headers: forwardHeaders(req.headers) });
  let engineRes: IncomingMessage | undefined;
  let ended = false;
  let idle: NodeJS.Timeout | undefined;
  const stopIdle = () => {
    if (idle) clearTimeout(idle);
    idle = undefined;
  };
  const end = () => {
    ended = true;
    stopIdle();
    out.destroy();
    engineRes?.destroy();
  };
  const watchIdle = () => {
    stopIdle();
    if (options && options.bodyIdleMs > 0 && !ended && !req.complete) idle = setTimeout(onIdle, options.bodyIdleMs).unref();
  };
  const onIdle = () => {
    if (req.complete || ended) return;
    if (req.readableFlowing === false) return watchIdle(); // held back by the engine side (no socket yet, or it reads slowly)
    end();
    if (!res.headersSent) options!.onStalled();
    else res.destroy();
  };
  req.on("data", watchIdle);
  req.on("end", stopIdle);
  watchIdle();
  out.on("response", (answer) => {
    engineRes = answer;
    if (ended) return void answer.destroy();
    res.writeHead(answer.statusCode ?? 502, responseHeaders(answer.headers));
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  out.on("error", (err) => {
    if (ended) return; // dropped by this side
    if (engineRes) res.destroy();
    else onDown(new UpstreamDown(upstream.shown, err));
  });
  // Whether the answer was sent whole or the client went away first: nothing more to do for it at the engine.
  res.on("close", () => {
    if (!res.writableFinished && !ended) end();
    stopIdle();
  });
  req.on("error", () => out.destroy());
  req.pipe(out);
}

/** Answers the way the engines answer a request they cannot serve: `{"error": {...}, "status": N}`. */
export function engineErrorBody(status: number, type: string, reason: string): Record<string, unknown> {
  return { error: { root_cause: [{ type, reason }], type, reason }, status };
}
