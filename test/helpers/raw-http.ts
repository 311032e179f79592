import net from "node:net";

/**
 * Writes `raw` (an HTTP request as bytes or text) on a socket to `url`'s host and port; after `afterMs`, ends
 * the socket's side (`end`: a client that closes its side early, the default), drops the connection
 * (`destroy`: resolves with nothing) or leaves it open (`none`) until the server closes. Resolves with
 * everything that came back, as text.
 */
export function rawHttp(url: string, raw: string | Buffer, options: { close?: "end" | "destroy" | "none"; afterMs?: number } = {}): Promise<string> {
  const { close = "end", afterMs = 50 } = options;
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(raw);
      if (close === "end") setTimeout(() => socket.end(), afterMs);
      if (close === "destroy") setTimeout(() => (socket.destroy(), resolve("")), afterMs);
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (text += d));
    socket.on("error", reject);
    socket.on("close", () => resolve(text));
  });
}
