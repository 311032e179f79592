/**
 * Starts a real search engine node from the Maven launchers in tools/local-opensearch and
 * tools/local-elasticsearch: checks java and mvn, builds when stale, spawns java, waits for the
 * ready line and returns a handle whose stop() closes the node.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NeardupError } from "../../core/errors.js";
import { buildJavaArgs, LineRing, parseLauncherLine, staleReason, type BuildState } from "./protocol.js";

export interface LocalEngineOptions {
  /** HTTP port on 127.0.0.1; 0 picks a free one. Default 0. */
  port?: number;
  /** The node's home (data in DIR/data, logs in DIR/logs). Default `<repo>/.neardup/<engine>-data`. One running node per directory. */
  dataDir?: string;
  /** JVM heap (-Xms and -Xmx). Default `1g`. */
  heap?: string;
  /** Build the Maven project when it is missing or stale (default true). false: never build; fail if not built. */
  build?: boolean;
  /** Receives the launcher's log lines (stderr) and Maven's output. Default: dropped (the last lines appear in errors). */
  log?: (line: string) => void;
  /** How long to wait for the ready line after java starts. Default 180 s. */
  timeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL. Default 30 s. */
  stopTimeoutMs?: number;
  /** Cluster name. Default `neardup-local`. */
  clusterName?: string;
  /** The java executable. Default `java` on PATH. */
  java?: string;
  /** The mvn executable. Default `mvn` on PATH. */
  mvn?: string;
  /** The Maven project folder. Default `<repo>/tools/local-<engine>`. */
  toolDir?: string;
}

export interface LocalEngine {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  url: string;
  port: number;
  dataDir: string;
  /** Sends SIGTERM, waits for the JVM to exit (SIGKILL after stopTimeoutMs). Idempotent. */
  stop(): Promise<void>;
  process: ChildProcess;
}

export interface EngineSpec {
  /** For messages: `OpenSearch`, `Elasticsearch`. */
  name: string;
  /** Folder under tools/: `local-opensearch`. */
  tool: string;
  mainClass: string;
  /** Ready/failed line prefix: `OPENSEARCH`. */
  prefix: string;
  /** Default data folder name under .neardup/. */
  dataName: string;
  jvmArgs: readonly string[];
}

/** Written by the pom (maven-resources-plugin, package phase, after copy-dependencies) on every successful build. */
const STAMP = ".neardup-built";

/** The repository root: the nearest ancestor of this file that holds tools/local-opensearch/pom.xml. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "tools", "local-opensearch", "pom.xml"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new NeardupError("ENVIRONMENT", "cannot find the neardup repository (tools/local-opensearch/pom.xml) above " + fileURLToPath(import.meta.url));
    }
    dir = parent;
  }
}

function commandWorks(cmd: string, args: string[]): boolean {
  const r = spawnSync(cmd, args, { stdio: "ignore", timeout: 60_000 });
  return r.error === undefined && r.status === 0;
}

/** Throws NeardupError ENVIRONMENT naming every missing tool. */
export function checkTools(tools: { java: string; mvn?: string | undefined }): void {
  const missing: string[] = [];
  if (!commandWorks(tools.java, ["-version"])) missing.push(`java (tried "${tools.java} -version"; install a JDK 17+)`);
  if (tools.mvn !== undefined && !commandWorks(tools.mvn, ["-v"])) missing.push(`mvn (tried "${tools.mvn} -v"; install Maven 3.8+)`);
  if (missing.length > 0) {
    throw new NeardupError("ENVIRONMENT", `the local engine needs ${missing.join(" and ")}, not found or not working`, {
      details: { missing: missing.map((m) => m.split(" ")[0]) },
    });
  }
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

export function buildState(toolDir: string): BuildState {
  const lib = join(toolDir, "target", "lib");
  const stamp = join(toolDir, "target", STAMP);
  return {
    newestSourceMs: Math.max(newestMtime(join(toolDir, "pom.xml")), newestMtime(join(toolDir, "src"))),
    stampMs: existsSync(stamp) ? statSync(stamp).mtimeMs : undefined,
    hasClasses: existsSync(join(toolDir, "target", "classes")),
    libJars: existsSync(lib) ? readdirSync(lib).filter((n) => n.endsWith(".jar")).length : 0,
  };
}

/** Runs `mvn -q -B package -DskipTests` in toolDir; the pom itself writes target/.neardup-built last. */
async function mavenBuild(mvn: string, toolDir: string, log: (line: string) => void): Promise<void> {
  const tail = new LineRing(40);
  const child = spawn(mvn, ["-q", "-B", "-Dstyle.color=never", "-f", join(toolDir, "pom.xml"), "package", "-DskipTests"], {
    cwd: toolDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [child.stdout, child.stderr]) {
    forEachLine(stream, (line) => {
      tail.push(line);
      log(line);
    });
  }
  const code = await new Promise<number | null>((res, rej) => {
    child.once("error", rej);
    child.once("close", (c) => res(c));
  });
  if (code !== 0) {
    throw new NeardupError("ENVIRONMENT", `Maven build of ${toolDir} failed (exit ${code}). Last output:\n${tail.toArray().join("\n")}`, {
      details: { toolDir, exitCode: code },
    });
  }
  if (!existsSync(join(toolDir, "target", STAMP))) {
    throw new NeardupError("ENVIRONMENT", `Maven build of ${toolDir} succeeded but wrote no target/${STAMP} (see the pom's neardup-build-stamp execution)`);
  }
}

function forEachLine(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let buf = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, nl).replace(/\r$/, ""));
      buf = buf.slice(nl + 1);
    }
  });
  stream.on("end", () => {
    if (buf.length > 0) onLine(buf);
    buf = "";
  });
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((res) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      res(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      res(true);
    };
    child.once("exit", onExit);
  });
}

/** Starts one node as described by spec. See startLocalOpenSearch. */
export async function startLocalEngine(spec: EngineSpec, options: LocalEngineOptions = {}): Promise<LocalEngine> {
  const log = options.log ?? (() => undefined);
  const java = options.java ?? "java";
  const mvn = options.mvn ?? "mvn";
  const build = options.build ?? true;
  const toolDir = resolve(options.toolDir ?? join(repoRoot(), "tools", spec.tool));
  const dataDir = resolve(options.dataDir ?? join(repoRoot(), ".neardup", spec.dataName));
  const timeoutMs = options.timeoutMs ?? 180_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 30_000;

  const reason = staleReason(buildState(toolDir));
  checkTools({ java, mvn: reason !== undefined && build ? mvn : undefined });
  if (reason !== undefined) {
    if (!build) {
      throw new NeardupError("ENVIRONMENT", `${toolDir} is not built (${reason}) and build is false; run: mvn -q -B -f ${join(toolDir, "pom.xml")} package -DskipTests`);
    }
    log(`[neardup] building ${spec.tool}: ${reason}`);
    await mavenBuild(mvn, toolDir, log);
  }

  mkdirSync(dataDir, { recursive: true });
  const args = buildJavaArgs({
    mainClass: spec.mainClass,
    port: options.port ?? 0,
    dataDir,
    heap: options.heap ?? "1g",
    clusterName: options.clusterName ?? "neardup-local",
    jvmArgs: spec.jvmArgs,
    pathSeparator: delimiter,
  });
  const child = spawn(java, args, { cwd: toolDir, stdio: ["pipe", "pipe", "pipe"] });
  const tail = new LineRing(30);
  let stopping: Promise<void> | undefined;

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.off("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      if (!(await waitForExit(child, stopTimeoutMs))) {
        log(`[neardup] ${spec.name} did not stop within ${stopTimeoutMs} ms: SIGKILL`);
        child.kill("SIGKILL");
        await waitForExit(child, 10_000);
      }
    })();
    return stopping;
  };
  // Last resort if the Node process exits without calling stop(); the launcher also exits when its stdin closes.
  const killOnExit = (): void => void child.kill("SIGTERM");
  process.once("exit", killOnExit);

  const ready = new Promise<{ url: string; port: number }>((res, rej) => {
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const lastLines = (): string => (tail.toArray().length ? `\nLast output:\n${tail.toArray().join("\n")}` : "");
    const timer = setTimeout(() => {
      settle(() =>
        rej(new NeardupError("ENVIRONMENT", `${spec.name} did not report ready within ${timeoutMs} ms${lastLines()}`, { details: { timeoutMs } })),
      );
    }, timeoutMs);
    forEachLine(child.stdout, (line) => {
      tail.push(line);
      log(line);
      const status = parseLauncherLine(line, spec.prefix);
      if (status?.kind === "ready") settle(() => res(status));
      else if (status?.kind === "failed") {
        settle(() =>
          rej(
            status.portInUse !== undefined
              ? new NeardupError("ENVIRONMENT", `cannot start ${spec.name}: port ${status.portInUse} on 127.0.0.1 is already in use (pick another port, or port 0 for a free one)`, {
                  details: { reason: "port-in-use", port: status.portInUse },
                })
              : new NeardupError("ENVIRONMENT", `cannot start ${spec.name}: ${status.reason}${lastLines()}`, { details: { reason: status.reason } }),
          ),
        );
      }
    });
    forEachLine(child.stderr, (line) => {
      tail.push(line);
      log(line);
    });
    child.once("error", (err) => settle(() => rej(new NeardupError("ENVIRONMENT", `cannot run ${java}: ${err.message}`, { cause: err }))));
    child.once("exit", (code, signal) =>
      settle(() => rej(new NeardupError("ENVIRONMENT", `${spec.name} exited before it was ready (code ${code}, signal ${signal})${lastLines()}`, { details: { exitCode: code, signal } }))),
    );
  });

  try {
    const { url, port } = await ready;
    return { url, port, dataDir, stop, process: child };
  } catch (err) {
    await stop();
    throw err;
  }
}
