/**
 * Two sidecar processes' `_bulk` proxies on one index: the lease holder
 * decides and writes, the follower forwards every fingerprinted item to it.
 * With NEARDUP_PEER_ANALYSES=on (the default) the follower sends its own
 * analyses with each chunk and the holder does not analyse the texts again;
 * off, the holder analyses every text. Each round starts both processes
 * afresh on a fresh index, in alternating order, sends the same documents of
 * bench/service.ts (2-8 Tang poems each) to the follower in bulks of 500, and
 * reads each process's CPU time from /proc: the holder's CPU a document is
 * what bounds an index's ingest when followers run on other machines.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 NEARDUP_BENCH_DOCS=5000 ROUNDS=3 npx tsx bench/proxy-sidecars.ts
 *
 * NEARDUP_BENCH_WORKERS sets each sidecar's NEARDUP_WORKERS (default 1: analysis in the request thread).
 */
import { readFileSync } from "node:fs";
import type { EngineTarget } from "../test/helpers/engine-targets.js";
import { startSidecar, type Sidecar } from "../test/helpers/sidecars.js";
import { loadPoems } from "./poems.js";
import { makeDoc } from "./service.js";

const url = (process.env.NEARDUP_ENGINE_URL ?? "").split(",")[0]!.trim();
if (!url) throw new Error("bench/proxy-sidecars.ts needs NEARDUP_ENGINE_URL");
const DOCS = Number(process.env.NEARDUP_BENCH_DOCS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WORKERS = process.env.NEARDUP_BENCH_WORKERS ?? "1";
const BATCH = 500;
const TICKS = 100; // clock ticks a second (`getconf CLK_TCK` on Linux)

/** CPU ms a process has used (user + system), from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

async function bulk(proxyUrl: string, index: string, docs: { id: string; text: string }[]): Promise<{ duplicates: number; errors: number }> {
  const body = docs.map((d) => `{"index":{"_index":"${index}","_id":"${d.id}"}}\n${JSON.stringify({ message: d.text })}\n`).join("");
  for (;;) {
    const res = await fetch(`${proxyUrl}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    if (res.status === 429 || res.status === 503) {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    const answer = (await res.json()) as { items: { index: { status: number; neardup?: { status: string } } }[] };
    const retry = answer.items.some((i) => i.index.status === 429);
    if (retry) {
      await new Promise((r) => setTimeout(r, 500));
      continue; // the same ids again: an update of the ones written
    }
    return { duplicates: answer.items.filter((i) => i.index.neardup?.status === "duplicate").length, errors: answer.items.filter((i) => i.index.status >= 300).length };
  }
}

const poems = loadPoems();
const docs = Array.from({ length: DOCS }, (_, i) => ({ id: `p${i}`, text: makeDoc(poems, 70_000_000 + i) }));
const target: EngineTarget = { kind: "opensearch", version: "", url, source: "env" };

async function round(mode: "on" | "off", n: number): Promise<string> {
  const index = `bench-peer-${mode}-${n}-${Date.now()}`;
  const env = { NEARDUP_INDEX: `${index}-api`, NEARDUP_PROXY_PORT: "0", NEARDUP_PROXY_INDICES: `${index}:message`, NEARDUP_WORKERS: WORKERS, NEARDUP_PEER_ANALYSES: mode };
  const started: Sidecar[] = [];
  try {
    const holder = await startSidecar(target, env);
    started.push(holder);
    await bulk(holder.proxyUrl!, index, [{ id: "warm-up", text: "一段与测试无关的文字，用来创建索引并取得写入租约。" }]);
    const follower = await startSidecar(target, env);
    started.push(follower);
    const [h0, f0, t0] = [cpuMs(holder.process.pid!), cpuMs(follower.process.pid!), performance.now()];
    let duplicates = 0;
    let errors = 0;
    for (let i = 0; i < docs.length; i += BATCH) {
      const r = await bulk(follower.proxyUrl!, index, docs.slice(i, i + BATCH));
      duplicates += r.duplicates;
      errors += r.errors;
    }
    const seconds = (performance.now() - t0) / 1000;
    const [h1, f1] = [cpuMs(holder.process.pid!), cpuMs(follower.process.pid!)];
    return `analyses ${mode.padEnd(3)} round ${n}: ${Math.round(docs.length / seconds)} docs/s, CPU ms/doc holder ${((h1 - h0) / docs.length).toFixed(3)}, follower ${((f1 - f0) / docs.length).toFixed(3)}; ${duplicates} duplicates, ${errors} errors`;
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    for (const name of [index, `${index}-api`]) await fetch(`${url}/${name}`, { method: "DELETE" });
  }
}

console.log(`${DOCS} documents a run, ${ROUNDS} rounds, NEARDUP_WORKERS=${WORKERS}, engine ${url}`);
for (let n = 0; n < ROUNDS; n++) {
  for (const mode of n % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) console.log(await round(mode, n));
}
