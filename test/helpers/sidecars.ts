import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import type { EngineTarget } from "./engine-targets.js";

/** One neardup sidecar process (src/server/main.ts) on a real engine. */
export interface Sidecar {
  url: string;
  /** The `_bulk` proxy's URL, when NEARDUP_PROXY_PORT is set. */
  proxyUrl: string | undefined;
  process: ChildProcess;
  /** SIGKILL: dies mid-stream, no graceful release. */
  kill(): void;
  stop(): Promise<void>;
}

/** Starts a sidecar on port 0 and resolves once it listens and its engine is ready (and its proxy listens, with NEARDUP_PROXY_PORT). */
export async function startSidecar(target: EngineTarget, env: Record<string, string>): Promise<Sidecar> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/server/main.ts"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NEARDUP_ENGINE_URL: target.url,
      ...(target.username ? { NEARDUP_ENGINE_USERNAME: target.username, NEARDUP_ENGINE_PASSWORD: target.password ?? "" } : {}),
      NEARDUP_PORT: "0",
      NEARDUP_LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr!.on("data", (d: Buffer) => stderr.push(String(d)));
  /** NEARDUP_TEST_SIDECAR_LOG_DIR: where each sidecar's log lines go (for looking into a failure). */
  const logDir = process.env.NEARDUP_TEST_SIDECAR_LOG_DIR;
  const withProxy = env.NEARDUP_PROXY_PORT !== undefined && env.NEARDUP_PROXY_PORT !== "";
  let proxyUrl: string | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL"); // not handed to the caller: nothing else would stop it
      reject(new Error(`sidecar did not become ready in 60 s: ${stderr.join("")}`));
    }, 60_000);
    let listening: string | undefined;
    let ready = false;
    const done = () => {
      if (!ready || (withProxy && proxyUrl === undefined)) return;
      clearTimeout(timer);
      resolve(listening!);
    };
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (logDir) appendFileSync(`${logDir}/sidecar-${child.pid}.log`, `${line}\n`);
      let entry: { msg?: string; url?: string };
      try {
        entry = JSON.parse(line) as { msg?: string; url?: string };
      } catch {
        return;
      }
      if (entry.msg === "neardup listening") listening = entry.url;
      if (entry.msg === "neardup _bulk proxy listening") proxyUrl = entry.url;
      if (entry.msg === "engine ready" && listening) ready = true;
      done();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`sidecar exited with ${code}: ${stderr.join("")}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    proxyUrl,
    process: child,
    kill: () => child.kill("SIGKILL"),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
