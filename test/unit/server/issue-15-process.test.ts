/**
 * Issue 15, the real `npm start` process: a malformed NEARDUP_ENGINE_URL that
 * carries a password is refused without echoing it; a non-loopback address
 * without keys is refused; TLS serves HTTPS with the configured certificate.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const cwd = new URL("../../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "neardup-main-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, ["--import", "tsx", "src/server/main.ts"], { cwd, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 });
    return { code: 0, stderr };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

describe("npm start (issue 15)", { timeout: 90_000 }, () => {
  it.each(["http//elastic:Hunter2-pw@es:9200", "https://elastic:Hunter2-pw@es:9200:notaport"])("refuses NEARDUP_ENGINE_URL=%s without printing the password", async (url) => {
    const r = await start({ NEARDUP_ENGINE_URL: url });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/neardup failed to start: INVALID_CONFIG: NEARDUP_ENGINE_URL=/);
    expect(r.stderr).not.toContain("Hunter2-pw");
  });

  it("refuses to listen on 0.0.0.0 without API keys", async () => {
    const r = await start({ NEARDUP_HOST: "0.0.0.0", NEARDUP_ENGINE_URL: "http://127.0.0.1:1" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no API keys are configured/);
  });

  it("serves HTTPS with the configured certificate", async () => {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"], { stdio: "ignore" });
    const child = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
      cwd,
      env: { PATH: process.env.PATH, NEARDUP_PORT: "0", NEARDUP_ENGINE_URL: "http://127.0.0.1:1", NEARDUP_TLS_CERT_FILE: cert, NEARDUP_TLS_KEY_FILE: key, NEARDUP_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += String(c);
          const m = /"url":"(https:\/\/[^"]+)"/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${url}/livez`, { rejectUnauthorized: false }, (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += String(c)));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.once("error", reject);
        req.end();
      });
      expect(status).toBe(200);
      expect(JSON.parse(body)).toEqual({ status: "ok" });
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  });
});
