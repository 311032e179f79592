/**
 * `neardup backfill --engine-ca-file` (default NEARDUP_ENGINE_CA_FILE): an https engine signed by a private CA,
 * as the service takes it. Without the CA the TLS handshake fails and no request reaches the engine; with it, the
 * engine is asked. A file that cannot be read is a clear error naming the flag.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProgram } from "../../../src/cli/program.js";

let server: Server;
let url: string;
let dir: string;
let ca: string;
let requests = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "neardup-backfill-tls-"));
  ca = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", ca, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  server = createServer({ cert: readFileSync(ca), key: readFileSync(key) }, (req, res) => {
    requests++;
    req.resume();
    res.writeHead(401, { "content-type": "application/json", "x-elastic-product": "Elasticsearch" });
    res.end(JSON.stringify({ error: { type: "security_exception", reason: "missing authentication credentials" }, status: 401 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function backfill(args: string[]): Promise<string> {
  const out = new Writable({ write: (_c, _e, cb) => cb() });
  try {
    await createProgram({ stdin: process.stdin, stdout: out, stderr: out }).parseAsync(["node", "neardup", "backfill", "logs", "--engine-url", url, "--no-progress", ...args]);
    return "";
  } catch (err) {
    return String(err);
  } finally {
    process.exitCode = undefined;
  }
}

describe("neardup backfill and an https engine with a private CA", () => {
  it("without the CA: no request reaches the engine (the certificate is refused)", async () => {
    requests = 0;
    const error = await backfill([]);
    expect(error).not.toBe("");
    expect(requests).toBe(0);
  }, 60_000);

  it("with --engine-ca-file, or NEARDUP_ENGINE_CA_FILE: the engine is asked", async () => {
    requests = 0;
    expect(await backfill(["--engine-ca-file", ca])).toMatch(/401|authenticat|credentials/i);
    expect(requests).toBeGreaterThan(0);
    requests = 0;
    process.env.NEARDUP_ENGINE_CA_FILE = ca;
    try {
      await backfill([]);
    } finally {
      delete process.env.NEARDUP_ENGINE_CA_FILE;
    }
    expect(requests).toBeGreaterThan(0);
  }, 60_000);

  it("a CA file that cannot be read is an error naming the flag and the path", async () => {
    requests = 0;
    const error = await backfill(["--engine-ca-file", join(dir, "missing.pem")]);
    expect(error).toMatch(/--engine-ca-file .*missing\.pem.* cannot be read/);
    expect(requests).toBe(0);
  });
});
