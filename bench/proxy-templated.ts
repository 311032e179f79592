/**
 * Templated log lines through the `_bulk` proxy (issues 9 and 12): every line
 * is one of five templates with a few fields changed, so most lines are
 * near-duplicates of thousands of earlier ones and share their band keys.
 * Measures, in one run against NEARDUP_ENGINE_URL, the same lines:
 *  1. a direct `_bulk` into the engine (the baseline);
 *  2. through the proxy (mark), in the same process, one request at a time;
 * and prints five bulks' times through the proxy, spread over the run, so
 * that a cost that grows with the lines already stored shows.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 NEARDUP_BENCH_DOCS=20000 npx tsx bench/proxy-templated.ts
 *
 * NEARDUP_BENCH_BULK: lines a request (default 1,000). NEARDUP_MIRROR_DOCS: the proxy's services answer
 * lookups from the window mirror (its load starts with the first bulk). NEARDUP_BENCH_COPIES=<k>: the lines
 * are k short texts (`t0`..), exact copies, without `@timestamp`, so the copies of one bulk share its arrival
 * time (audit 18, F4: a bulk of 200,000 such lines). No assertion on time.
 */
import { connectEngine, installTemplates } from "../src/engine/index.js";
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { parseIndexRules, startProxy } from "../src/proxy/index.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createRng } from "./quality/rng.js";

const DOCS = Number(process.env.NEARDUP_BENCH_DOCS ?? 20_000);
const BULK = Number(process.env.NEARDUP_BENCH_BULK ?? 1000);
const url = (process.env.NEARDUP_ENGINE_URL ?? "").split(",")[0]!.trim();
if (!url) throw new Error("bench/proxy-templated.ts needs NEARDUP_ENGINE_URL");

const rng = createRng(7);
const n = (max: number) => rng.int(max);
const users = Array.from({ length: 500 }, (_, i) => `user${i}`);
const templates = [
  () => `Accepted publickey for ${users[n(500)]} from 10.${n(255)}.${n(255)}.${n(255)} port ${n(60000)} ssh2: RSA SHA256:${n(1e9).toString(36)}`,
  () => `GET /api/v1/items/${n(1e6)}?page=${n(20)} HTTP/1.1 200 ${n(5000)} "-" "Mozilla/5.0 (X11; Linux x86_64)" rt=0.${n(1000)}`,
  () => `kernel: [${n(1e5)}.${n(1e6)}] eth0: link up, 1000Mbps, full-duplex, lpa 0x${n(65535).toString(16)}`,
  () => `pam_unix(sshd:session): session opened for user ${users[n(500)]}(uid=${n(2000)}) by (uid=0)`,
  () => `CRON[${n(99999)}]: (${users[n(500)]}) CMD (/usr/local/bin/backup.sh --target s3://bucket-${n(50)} --quiet)`,
];
const start = Date.UTC(2026, 11, 4);
const COPIES = Number(process.env.NEARDUP_BENCH_COPIES ?? 0);
const lines = Array.from({ length: DOCS }, (_, k) => (COPIES > 0 ? `t${k % COPIES}` : templates[n(templates.length)]!()));

function bodies(index: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < DOCS; i += BULK) {
    let body = "";
    for (let k = i; k < Math.min(DOCS, i + BULK); k++) body += `${JSON.stringify({ index: { _index: index, _id: `l${k}` } })}\n${JSON.stringify(COPIES > 0 ? { message: lines[k] } : { message: lines[k], "@timestamp": new Date(start + k * 10).toISOString() })}\n`;
    out.push(body);
  }
  return out;
}

async function send(target: string, body: string): Promise<{ items: { index: { status: number; neardup?: { status: string } } }[] }> {
  const res = await fetch(`${target}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
  const json = (await res.json()) as { errors?: boolean; items: { index: { status: number; error?: unknown; neardup?: { status: string } } }[] };
  if (res.status !== 200 || json.errors) throw new Error(`bulk failed: HTTP ${res.status} ${JSON.stringify(json.items?.find((x) => x.index.error))}`);
  return json;
}

const engine = await connectEngine({ url });
await installTemplates(engine);
const fingerprinter = await createFingerprinter();
const suffix = Date.now().toString(36);
const raw = `neardup-bench-templated-raw-${suffix}`;
const dedup = `neardup-bench-templated-${suffix}`;
for (const index of [raw, dedup]) {
  await engine.createIndex(index, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
}
const proxy = await startProxy({ host: "127.0.0.1", port: 0, connection: { url }, rules: parseIndexRules(`${dedup}:message`), dedup: resolveDedupOptions({ mirrorDocs: Number(process.env.NEARDUP_MIRROR_DOCS ?? 0) }), engine: () => engine, fingerprinter: async () => fingerprinter, analyzer: () => undefined });
try {
  let started = performance.now();
  for (const body of bodies(raw)) await send(url, body);
  const rawSeconds = (performance.now() - started) / 1000;
  let marked = 0;
  const each: string[] = [];
  started = performance.now();
  const all = bodies(dedup);
  const every = Math.max(1, Math.floor(all.length / 5));
  for (const [b, body] of all.entries()) {
    const t = performance.now();
    for (const item of (await send(proxy.url, body)).items) if (item.index.neardup?.status === "duplicate") marked++;
    if (b % every === every - 1) each.push(`bulk ${b + 1}: ${Math.round(performance.now() - t)} ms`);
  }
  const proxySeconds = (performance.now() - started) / 1000;
  console.log(`${DOCS} ${COPIES > 0 ? `copies of ${COPIES} short texts` : "templated log lines"}, bulks of ${BULK}, one request at a time`);
  console.log(`direct _bulk (baseline): ${rawSeconds.toFixed(1)} s, ${Math.round(DOCS / rawSeconds)} docs/s`);
  console.log(`through the proxy (mark): ${proxySeconds.toFixed(1)} s, ${Math.round(DOCS / proxySeconds)} docs/s, ${(rawSeconds / proxySeconds).toFixed(3)}x the baseline, ${marked} marked`);
  console.log(each.join("; "));
} finally {
  await proxy.close();
  for (const index of [raw, dedup]) await engine.deleteIndex(index);
  await engine.close();
}
