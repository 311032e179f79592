/**
 * Requests Node's HTTP parser gives up on: a body that ends before its Content-Length (the client closed its
 * side of the connection early), a malformed request, headers too large, a request that timed out. Node
 * answers those with an empty `400 Bad Request`, before any route sees them; a server that installs
 * {@link onClientError} answers in its own error shape instead (the API's `{"error": ...}`, the proxy's engine
 * JSON), on the socket itself. Nothing of such a request reached a route, so nothing of it was written.
 */
import { STATUS_CODES } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { loggedThrottle, type LogThrottle } from "./log-throttle.js";

/** What went wrong, as Node picks the status; `kind` names it for the server's own error codes. */
export interface ClientErrorAnswer {
  status: number;
  kind: "short_body" | "headers_too_large" | "chunk_extensions_too_large" | "timeout" | "malformed";
  reason: string;
}

/** The status and reason for a parser error. */
export function clientErrorAnswer(err: NodeJS.ErrnoException, req: IncomingMessage | undefined): ClientErrorAnswer {
  const length = req?.headers["content-length"];
  switch (err.code) {
    case "HPE_INVALID_EOF_STATE":
      return {
        status: 400,
        kind: "short_body",
        reason: length === undefined
          ? "the request ended before its body did: the client closed its side of the connection early"
          : `the request body ended before the ${length} bytes its Content-Length announced: the client closed its side of the connection early`,
      };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, kind: "headers_too_large", reason: "the request headers are too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, kind: "chunk_extensions_too_large", reason: "the request's chunk extensions are too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, kind: "timeout", reason: "the request was not received in time" };
    default:
      return { status: 400, kind: "malformed", reason: `malformed HTTP request (${err.code ?? "unknown"}: ${err.message})` };
  }
}

/** Each connection's request in progress: a server sets it in its request handler (`track`). */
export type Inflight = WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>;

/** Remembers `req` as its connection's request in progress, until its answer closes. */
export function track(inflight: Inflight, req: IncomingMessage, res: ServerResponse): void {
  inflight.set(req.socket, { req, res });
  res.once("close", () => inflight.get(req.socket)?.res === res && inflight.delete(req.socket));
}

/** The body (JSON text) and extra headers of an answer, in the server's error shape. */
export type RenderClientError = (answer: ClientErrorAnswer) => { body: string; headers?: Record<string, string> };

/**
 * A `clientError` listener: answers with {@link clientErrorAnswer}, rendered by `render`, when nothing of an
 * answer was sent yet and the socket can still be written to (a client that closed only its side reads it),
 * then closes the connection; logs each under `label`, at most one line of a kind per `throttle`'s interval.
 */
export function onClientError(inflight: Inflight, render: RenderClientError, logger: Logger | undefined, label: string, throttle: LogThrottle = loggedThrottle(logger, label)) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    const current = inflight.get(socket);
    const answer = clientErrorAnswer(err, current?.req);
    const answered = socket.writable && !current?.res.headersSent;
    // Express rewrites `url` under a mount point; `originalUrl` is what the client sent.
    const where = current ? `${current.req.method ?? ""} ${((current.req as { originalUrl?: string }).originalUrl ?? current.req.url ?? "").slice(0, 200)}` : undefined;
    // A client can cause these at will, one a connection: at most one line of a kind per 10 s, the next saying how
    // many were left out (audit 23, F8).
    const say = logger && throttle.take(answer.kind);
    if (say && answer.kind === "short_body") logger?.info({ request: where, contentLength: current?.req.headers["content-length"], answered, ...say }, `${label}: request body ended before its Content-Length; nothing was written`);
    else if (say) logger?.info({ request: where, code: err.code, answered, ...say }, `${label}: malformed HTTP request`);
    if (answered) {
      const { body, headers = {} } = render(answer);
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
          `${extra}connection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
