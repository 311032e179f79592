/** Graceful close of an HTTP server: the API's and the `_bulk` proxy's. */
import type { Server } from "node:http";
import type { Logger } from "pino";

/**
 * Stops accepting connections and waits for in-flight requests to finish:
 * idle keep-alive connections are closed as they become idle; whatever is
 * still running after `timeoutMs` is cut.
 */
export async function drain(server: Server, timeoutMs: number, logger?: Logger): Promise<void> {
  const closedPromise = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), timeoutMs);
  });
  const cut = await Promise.race([closedPromise.then(() => false), timedOut]);
  clearInterval(idle);
  clearTimeout(timer);
  if (cut) {
    logger?.warn({ timeoutMs }, "requests still running at the shutdown timeout: closing their connections");
    server.closeAllConnections();
    await closedPromise;
  }
}
