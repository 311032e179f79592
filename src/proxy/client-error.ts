/**
 * Requests Node's HTTP parser gives up on: a body that ends before its Content-Length (the client closed its
 * side of the connection early), a malformed request, headers too large, a request that timed out. Node
 * answers those with an empty `400 Bad Request`; the engines' clients read the engine's error JSON, so the
 * proxy answers in that shape, on the socket itself (no response object reaches the proxy for them).
 * Nothing of such a request is written to the engine: a `_bulk` body is read whole before anything is sent.
 */
import { STATUS_CODES } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { engineErrorBody } from "./upstream.js";

/** The status, error type and reason for a parser error, as Node picks the status. */
export function clientErrorAnswer(err: NodeJS.ErrnoException, req: IncomingMessage | undefined): { status: number; type: string; reason: string } {
  const length = req?.headers["content-length"];
  switch (err.code) {
    case "HPE_INVALID_EOF_STATE":
      return {
        status: 400,
        type: "illegal_argument_exception",
        reason: length === undefined
          ? "the request ended before its body did: the client closed its side of the connection early"
          : `the request body ended before the ${length} bytes its Content-Length announced: the client closed its side of the connection early`,
      };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, type: "too_long_http_header_exception", reason: "the request headers are too large" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, type: "content_too_long_exception", reason: "the request's chunk extensions are too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, type: "request_timeout_exception", reason: "the request was not received in time" };
    default:
      return { status: 400, type: "illegal_argument_exception", reason: `malformed HTTP request (${err.code ?? "unknown"}: ${err.message})` };
  }
}

/**
 * A `clientError` listener for `server`: answers with {@link clientErrorAnswer} in the engine's shape when
 * nothing of an answer was sent yet and the socket can still be written to (a client that closed only its
 * side reads it), then closes the connection; logs each. `inflight` maps a socket to its request in progress.
 */
export function onClientError(inflight: WeakMap<Duplex, { req: IncomingMessage; res: ServerResponse }>, product: () => string | undefined, logger: Logger | undefined) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    const current = inflight.get(socket);
    const answer = clientErrorAnswer(err, current?.req);
    const answered = socket.writable && !current?.res.headersSent;
    const where = current ? `${current.req.method ?? ""} ${(current.req.url ?? "").slice(0, 200)}` : undefined;
    if (err.code === "HPE_INVALID_EOF_STATE") logger?.info({ request: where, contentLength: current?.req.headers["content-length"], answered }, "proxy: request body ended before its Content-Length; nothing sent to the engine");
    else logger?.info({ request: where, code: err.code, answered }, "proxy: malformed HTTP request");
    if (answered) {
      const text = JSON.stringify(engineErrorBody(answer.status, answer.type, answer.reason));
      const name = product();
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}\r\ncontent-type: application/json; charset=UTF-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\n` +
          `${name ? `x-elastic-product: ${name}\r\n` : ""}connection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}
