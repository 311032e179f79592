/**
 * Load test (issue 15): a sustained mixed workload against the real service
 * over loopback, with autocannon; reports latency p50/p99, errors and the
 * service's memory (RSS) over time.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:9200 npx tsx bench/load.ts            # 180 s, 16 connections
 *   NEARDUP_ENGINE_URL=... NEARDUP_BENCH_SECONDS=30 npx tsx bench/load.ts     # a short run
 *
 * The service runs as its own process (`src/server/main.ts`, every limit at
 * its default except the per-key rate limit, which one load generator would
 * only trip), bound to 127.0.0.1 with an API key, on a fresh index that is
 * deleted at the end. The engine must be on loopback too.
 *
 * Workload, per request drawn round-robin from a seeded list: 40% check,
 * 25% index (POST /v1/documents, a fifth of them near-duplicates of earlier
 * ones), 15% search by text, 10% compare, 10% fingerprint. Texts are real
 * classical Chinese (npm `chinese-poetry`), 2-8 poems each (about 100-700
 * characters), and one compare in 20 is two 20,000-character texts.
 * Baseline in the same run: GET /livez with the same connections, so the
 * latency ratio says what the dedup work costs over the HTTP floor.
 * No assertion: figures go to docs/benchmarks.md with the command.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { connectEngine } from "../src/engine/index.js";
import { createRng } from "./quality/rng.js";
import { loadPoems } from "./poems.js";

const SECONDS = Number(process.env.NEARDUP_BENCH_SECONDS ?? 180);
const CONNECTIONS = Number(process.env.NEARDUP_BENCH_CONNECTIONS ?? 16);
const BASELINE_SECONDS = Math.max(3, Math.min(10, Math.round(SECONDS / 10)));
const KEY = "load-key-" + createHash("sha256").update(String(process.pid)).digest("hex").slice(0, 16);
const ROOT = join(import.meta.dirname, "..");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Math.round(kb / 1024);
}

interface Req {
  method: "GET" | "POST";
  path: string;
  body?: string;
  kind: string;
}

/** The seeded request list the connections cycle through. */
function workload(poems: string[], count: number): Req[] {
  const rng = createRng(15);
  const doc = () => Array.from({ length: 2 + rng.int(7) }, () => poems[rng.int(poems.length)]).join("\n");
  const indexed: string[] = [];
  const out: Req[] = [];
  const long = () => poems.join("\n").slice(rng.int(10_000), 30_000).slice(0, 20_000);
  for (let i = 0; i < count; i++) {
    const r = rng.int(100);
    if (r < 40) {
      const text = indexed.length && rng.int(2) === 0 ? indexed[rng.int(indexed.length)]! + "（转载）" : doc();
      out.push({ method: "POST", path: "/v1/check", body: JSON.stringify({ text }), kind: "check" });
    } else if (r < 65) {
      const near = indexed.length > 0 && rng.int(5) === 0;
      const text = near ? indexed[rng.int(indexed.length)]!.replace(/[，。]/, "之") : doc();
      indexed.push(text);
      out.push({ method: "POST", path: "/v1/documents", body: JSON.stringify({ id: `load-${i}`, text }), kind: "index" });
    } else if (r < 80) {
      out.push({ method: "POST", path: "/v1/search", body: JSON.stringify({ text: doc(), limit: 10 }), kind: "search" });
    } else if (r < 90) {
      const big = rng.int(20) === 0;
      const a = big ? long() : doc();
      out.push({ method: "POST", path: "/v1/compare", body: JSON.stringify({ a, b: big ? a.slice(100) + "。" : doc() }), kind: "compare" });
    } else {
      out.push({ method: "POST", path: "/v1/fingerprint", body: JSON.stringify({ text: doc(), top: 5 }), kind: "fingerprint" });
    }
  }
  return out;
}

async function waitReady(url: string, child: { exitCode: number | null }): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited (code ${child.exitCode})`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the service did not become ready in 120 s");
}

function fire(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export async function run(): Promise<void> {
  const engineUrl = process.env.NEARDUP_ENGINE_URL?.split(",")[0];
  if (!engineUrl) throw new Error("set NEARDUP_ENGINE_URL to an engine on loopback (the load test starts no engine)");
  const host = new URL(engineUrl).hostname;
  if (!["127.0.0.1", "localhost", "[::1]"].includes(host)) throw new Error(`the load test runs on loopback only; the engine is at ${host}`);
  const port = await freePort();
  const index = `neardup-load-${process.pid}-${Date.now().toString(36)}`;
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src", "server", "main.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      PATH: process.env.PATH,
      NEARDUP_HOST: "127.0.0.1",
      NEARDUP_PORT: String(port),
      NEARDUP_ENGINE_URL: engineUrl,
      NEARDUP_INDEX: index,
      NEARDUP_API_KEYS: `load:admin:${createHash("sha256").update(KEY).digest("hex")}`,
      NEARDUP_RATE_LIMIT_RPS: "0",
      NEARDUP_LOG_LEVEL: "error",
    },
  });
  const pid = child.pid!;
  try {
    await waitReady(url, child);
    const requests = workload(loadPoems(8), 20_000);
    const headers = { "content-type": "application/json", authorization: `Bearer ${KEY}` };
    console.log(`# neardup load test: ${SECONDS} s mixed workload, ${CONNECTIONS} connections, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);

    const baseline = await fire({ url, connections: CONNECTIONS, duration: BASELINE_SECONDS, requests: [{ method: "GET", path: "/livez" }] });
    const samples: { t: number; rss: number }[] = [{ t: 0, rss: rssMb(pid) }];
    const t0 = Date.now();
    const sampler = setInterval(() => samples.push({ t: Math.round((Date.now() - t0) / 1000), rss: rssMb(pid) }), 1000);
    let next = 0;
    const byKind = new Map<string, Map<number, number>>();
    const mixed = await fire({
      url,
      connections: CONNECTIONS,
      duration: SECONDS,
      timeout: 30,
      requests: [
        {
          setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
            const r = requests[next++ % requests.length]!;
            context.kind = r.kind;
            return { ...req, method: r.method, path: r.path, body: r.body, headers };
          },
          onResponse: (status: number, _body: string, context: Record<string, unknown>) => {
            const kind = String(context.kind);
            const counts = byKind.get(kind) ?? new Map<number, number>();
            counts.set(status, (counts.get(status) ?? 0) + 1);
            byKind.set(kind, counts);
          },
        } as never,
      ],
    });
    clearInterval(sampler);
    samples.push({ t: Math.round((Date.now() - t0) / 1000), rss: rssMb(pid) });

    const ok = (s: number) => s >= 200 && s < 300;
    const errors = [...byKind.values()].reduce((n, m) => n + [...m].filter(([s]) => !ok(s)).reduce((k, [, c]) => k + c, 0), 0);
    console.log(`\n## baseline GET /livez (${BASELINE_SECONDS} s): ${Math.round(baseline.requests.average)} req/s, p50 ${baseline.latency.p50} ms, p99 ${baseline.latency.p99} ms`);
    console.log(`\n## mixed workload (${SECONDS} s)`);
    console.log(`requests: ${mixed.requests.total} (${Math.round(mixed.requests.average)} req/s)`);
    console.log(`latency: p50 ${mixed.latency.p50} ms, p90 ${mixed.latency.p90} ms, p99 ${mixed.latency.p99} ms, max ${mixed.latency.max} ms`);
    console.log(`latency vs baseline: p50 x${(mixed.latency.p50 / Math.max(baseline.latency.p50, 1)).toFixed(1)}, p99 x${(mixed.latency.p99 / Math.max(baseline.latency.p99, 1)).toFixed(1)}`);
    console.log(`errors: ${errors} non-2xx, ${mixed.errors} connection errors, ${mixed.timeouts} timeouts`);
    for (const [kind, counts] of [...byKind].sort()) {
      console.log(`  ${kind.padEnd(12)} ${[...counts].sort().map(([s, c]) => `${s}: ${c}`).join(", ")}`);
    }
    const step = Math.max(1, Math.round(samples.length / 12));
    const shown = samples.filter((_, i) => i % step === 0 || i === samples.length - 1);
    console.log(`\n## service RSS (MB) over time`);
    console.log(shown.map((s) => `${s.t}s: ${s.rss}`).join(", "));
    const rss = samples.map((s) => s.rss);
    console.log(`RSS min ${Math.min(...rss)} MB, max ${Math.max(...rss)} MB, last ${rss[rss.length - 1]} MB`);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    const engine = await connectEngine({ url: engineUrl });
    await engine.deleteIndex(index).catch(() => undefined);
    await engine.close();
  }
}

run().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
