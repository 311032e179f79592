/**
 * `neardup backfill` had no way to send an engine API key, which the service
 * takes (NEARDUP_ENGINE_API_KEY): against an Elasticsearch that accepts only
 * API keys it could not run. `--engine-api-key` (default NEARDUP_ENGINE_API_KEY)
 * now reaches the engine as `Authorization: ApiKey ...`, as the service's does;
 * the key never shows in what the command prints.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProgram } from "../../../src/cli/program.js";

const KEY = "aWQ6c2VjcmV0LWtleS0yNA==";

/** An engine stand-in that refuses every request as an unauthenticated one, keeping each request's Authorization header. */
let server: Server;
let url: string;
const seen: (string | undefined)[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    res.writeHead(401, { "content-type": "application/json", "x-elastic-product": "Elasticsearch" });
    res.end(JSON.stringify({ error: { root_cause: [{ type: "security_exception", reason: "missing authentication credentials" }], type: "security_exception", reason: "missing authentication credentials" }, status: 401 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

function sink() {
  const chunks: string[] = [];
  return { stream: new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) }), text: () => chunks.join("") };
}

/** Runs `neardup backfill` in this process; resolves with what it printed and the error it stopped with. */
async function backfill(args: string[]): Promise<{ stdout: string; stderr: string; error: string }> {
  const stdout = sink();
  const stderr = sink();
  seen.length = 0;
  let error = "";
  try {
    await createProgram({ stdin: process.stdin, stdout: stdout.stream, stderr: stderr.stream }).parseAsync(["node", "neardup", "backfill", "logs", "--engine-url", url, "--no-progress", ...args]);
  } catch (err) {
    error = String(err);
  } finally {
    process.exitCode = undefined;
  }
  return { stdout: stdout.text(), stderr: stderr.text(), error };
}

describe("neardup backfill and the engine's credentials", () => {
  it("--engine-api-key reaches the engine as Authorization: ApiKey, and is not printed", async () => {
    const r = await backfill(["--engine-api-key", KEY]);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([`ApiKey ${KEY}`]));
    expect(r.error).toMatch(/401|authenticat|credentials/i); // stopped by the stand-in's refusal
    expect(r.stdout + r.stderr + r.error).not.toContain(KEY);
  }, 60_000);

  it("takes NEARDUP_ENGINE_API_KEY when the flag is not given, as the service does", async () => {
    process.env.NEARDUP_ENGINE_API_KEY = KEY;
    try {
      await backfill([]);
    } finally {
      delete process.env.NEARDUP_ENGINE_API_KEY;
    }
    expect(new Set(seen)).toEqual(new Set([`ApiKey ${KEY}`]));
  }, 60_000);

  it("still sends basic auth from --engine-username and --engine-password, and nothing without credentials", async () => {
    await backfill(["--engine-username", "elastic", "--engine-password", "pw"]);
    expect(new Set(seen)).toEqual(new Set([`Basic ${Buffer.from("elastic:pw").toString("base64")}`]));
    await backfill([]);
    expect(new Set(seen)).toEqual(new Set([undefined]));
  }, 60_000);

  it("lists --engine-api-key in its help, with the variable it defaults to", async () => {
    const out = sink();
    const program = createProgram({ stdin: process.stdin, stdout: out.stream, stderr: out.stream });
    const backfillCommand = program.commands.find((c) => c.name() === "backfill")!;
    expect(backfillCommand.helpInformation()).toMatch(/--engine-api-key <key>[\s\S]*NEARDUP_ENGINE_API_KEY/);
  });
});
