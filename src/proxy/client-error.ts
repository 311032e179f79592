/**
 * The proxy's answer to requests Node's HTTP parser gives up on (server/client-error.ts), in the engines'
 * error shape, so that the engines' clients read it: a body shorter than its Content-Length is a
 * `400 illegal_argument_exception` naming it. Nothing of such a `_bulk` is written: its body is read whole
 * before anything is sent.
 */
import type { Logger } from "pino";
import { onClientError, type ClientErrorAnswer, type Inflight } from "../server/client-error.js";
import type { LogThrottle } from "../server/log-throttle.js";
import { engineErrorBody } from "./upstream.js";

const TYPES: Record<ClientErrorAnswer["kind"], string> = {
  short_body: "illegal_argument_exception",
  headers_too_large: "too_long_http_header_exception",
  chunk_extensions_too_large: "content_too_long_exception",
  timeout: "request_timeout_exception",
  malformed: "illegal_argument_exception",
};

/** The engine's error type for a parser error. */
export function engineErrorType(answer: ClientErrorAnswer): string {
  return TYPES[answer.kind];
}

/** The proxy's `clientError` listener; `product` is the `X-Elastic-Product` to send, if any. */
export function onProxyClientError(inflight: Inflight, product: () => string | undefined, logger: Logger | undefined, throttle?: LogThrottle) {
  return onClientError(
    inflight,
    (answer) => {
      const name = product();
      const headers: Record<string, string> = name ? { "x-elastic-product": name } : {};
      return { body: JSON.stringify(engineErrorBody(answer.status, engineErrorType(answer), answer.reason)), headers };
    },
    logger,
    "proxy",
    throttle,
  );
}
