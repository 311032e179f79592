/**
 * The proxy path alone, for profiling (`node --cpu-prof`): starts the proxy in
 * this process in front of NEARDUP_ENGINE_URL and sends NEARDUP_BENCH_DOCS
 * short texts (default 20,000) through it in `_bulk` requests of
 * NEARDUP_BENCH_BULK (default 1,000), one at a time; prints docs/s.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 node --cpu-prof --cpu-prof-dir=.neardup/prof --import tsx bench/proxy-profile.ts
 */
import { createFingerprinter } from "../src/core/fingerprinter.js";
import { connectEngine, installTemplates } from "../src/engine/index.js";
import { parseIndexRules, startProxy } from "../src/proxy/index.js";
import { resolveDedupOptions } from "../src/service/options.js";
import { createAnalyzer } from "../src/workers/index.js";
import { shortTexts } from "../test/helpers/short-texts.js";

const DOCS = Number(process.env.NEARDUP_BENCH_DOCS ?? 20_000);
const BULK = Number(process.env.NEARDUP_BENCH_BULK ?? 1000);
const url = (process.env.NEARDUP_ENGINE_URL ?? "").split(",")[0]!.trim();
if (!url) throw new Error("bench/proxy-profile.ts needs NEARDUP_ENGINE_URL");

const engine = await connectEngine({ url });
await installTemplates(engine);
const fingerprinter = await createFingerprinter();
const index = `neardup-bench-profile-${Date.now().toString(36)}`;
await engine.createIndex(index, { mappings: { properties: { "@timestamp": { type: "date" }, message: { type: "text" } } }, settings: { number_of_shards: 1, number_of_replicas: 0 } });
const workers = Number(process.env.NEARDUP_WORKERS ?? 1);
const analyzer = workers > 1 ? await createAnalyzer(fingerprinter, workers) : undefined;
const proxy = await startProxy({ host: "127.0.0.1", port: 0, connection: { url }, rules: parseIndexRules(`${index}:message`), dedup: resolveDedupOptions({}), engine: () => engine, fingerprinter: async () => fingerprinter, analyzer: () => analyzer });
try {
  const docs = shortTexts(DOCS);
  const bodies: string[] = [];
  for (let i = 0; i < docs.length; i += BULK) {
    bodies.push(
      docs
        .slice(i, i + BULK)
        .map((d) => `${JSON.stringify({ index: { _index: index, _id: d.id } })}\n${JSON.stringify({ message: d.message, "@timestamp": new Date(d.time).toISOString() })}\n`)
        .join(""),
    );
  }
  const started = performance.now();
  for (const body of bodies) {
    const res = await fetch(`${proxy.url}/_bulk`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body });
    const json = (await res.json()) as { errors?: boolean };
    if (res.status !== 200 || json.errors) throw new Error(`proxy bulk failed: HTTP ${res.status}`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${DOCS} docs through the proxy in ${seconds.toFixed(1)} s: ${Math.round(DOCS / seconds)} docs/s`);
} finally {
  await proxy.close();
  await analyzer?.close();
  await engine.deleteIndex(index);
  await engine.close();
}
