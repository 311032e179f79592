/**
 * Pure parts of the local engine launcher: the stdout protocol of the Java launchers in
 * tools/local-*, the java command line, and the "is the build stale" decision.
 */

/** What a launcher prints on stdout, one line, before anything else happens. */
export type LauncherStatus =
  | { kind: "ready"; url: string; port: number }
  | { kind: "failed"; reason: string; portInUse: number | undefined };

/**
 * Parses one stdout line of a launcher: `<PREFIX>_READY http://127.0.0.1:PORT` or
 * `<PREFIX>_FAILED <reason>` (prefix `OPENSEARCH` or `ELASTICSEARCH`). Any other line: undefined.
 */
export function parseLauncherLine(line: string, prefix: string): LauncherStatus | undefined {
  const text = line.trim();
  const ready = `${prefix}_READY `;
  const failed = `${prefix}_FAILED `;
  if (text.startsWith(ready)) {
    const url = text.slice(ready.length).trim();
    const match = /^http:\/\/[^/:\s]+:(\d{1,5})$/.exec(url);
    if (!match) return undefined;
    return { kind: "ready", url, port: Number(match[1]) };
  }
  if (text.startsWith(failed)) {
    const reason = text.slice(failed.length).trim();
    const inUse = /^port (\d{1,5}) on \S+ is already in use$/.exec(reason);
    return { kind: "failed", reason, portInUse: inUse ? Number(inUse[1]) : undefined };
  }
  return undefined;
}

export interface JavaArgsOptions {
  mainClass: string;
  port: number;
  dataDir: string;
  /** Heap for -Xms and -Xmx, in the JVM's syntax (`1g`, `768m`). */
  heap: string;
  clusterName?: string;
  /** Extra JVM flags placed before the main class. */
  jvmArgs?: readonly string[];
  /** Classpath separator (`:` on POSIX, `;` on Windows). */
  pathSeparator?: string;
}

const HEAP = /^\d+[kmgKMG]?$/;

/** The arguments to `java`, run with the tool directory as working directory. */
export function buildJavaArgs(o: JavaArgsOptions): string[] {
  if (!HEAP.test(o.heap)) throw new RangeError(`heap must look like 512m or 1g, got ${JSON.stringify(o.heap)}`);
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) {
    throw new RangeError(`port must be an integer 0..65535, got ${o.port}`);
  }
  const sep = o.pathSeparator ?? ":";
  const args = [
    `-Xms${o.heap}`,
    `-Xmx${o.heap}`,
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-Dfile.encoding=UTF-8",
    ...(o.jvmArgs ?? []),
    "-cp",
    `target/classes${sep}target/lib/*`,
    o.mainClass,
    "--port",
    String(o.port),
    "--data",
    o.dataDir,
    "--exit-on-stdin-eof",
  ];
  if (o.clusterName !== undefined) args.push("--cluster-name", o.clusterName);
  return args;
}

export interface BuildState {
  /** Newest modification time (ms) among pom.xml and every file under src/. */
  newestSourceMs: number;
  /** Modification time of the stamp written after the last successful build, if any. */
  stampMs: number | undefined;
  hasClasses: boolean;
  /** Number of jars in target/lib. */
  libJars: number;
}

/** Why the Maven project must be (re)built, or undefined when the last build is current. */
export function staleReason(s: BuildState): string | undefined {
  if (!s.hasClasses) return "target/classes is missing";
  if (s.libJars === 0) return "target/lib is missing or empty";
  if (s.stampMs === undefined) return "no successful build recorded";
  if (s.newestSourceMs > s.stampMs) return "pom.xml or src/ changed since the last build";
  return undefined;
}

/** Keeps the last `size` lines pushed, for error messages. */
export class LineRing {
  private readonly lines: string[] = [];
  constructor(private readonly size: number) {}
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }
  toArray(): string[] {
    return [...this.lines];
  }
}
