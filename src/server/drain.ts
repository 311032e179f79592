/**
 * Graceful close of an HTTP server (the API's and the `_bulk` proxy's): no new
 * connections, idle ones closed as they go idle, requests in flight finish;
 * at `timeoutMs` the connections still open are closed.
 */
import type { Server } from "node:http";
import type { Logger } from "pino";

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
