/**
 * What the doc values of the keyword keys cost at write time: the same neardup
 * documents (read from an index the service wrote, NEARDUP_BENCH_SOURCE,
 * default `bench-dedup`) bulk-written into a fresh index with the contract's
 * mapping (A) and into one whose `seg0`..`seg3` and `lsh` keywords have no doc
 * values (B: candidate reads use `neardup.lsh_list` and `neardup.simhash`, so
 * nothing reads them), rounds interleaved. Prints the engine's CPU ms a
 * document for the writes (up to the refresh), docs/s, and bytes a document
 * after a force merge to one segment.
 *
 *   NEARDUP_ENGINE_URL=http://127.0.0.1:19200 ROUNDS=6 npx tsx bench/mapping-cost.ts
 */
import { readFileSync } from "node:fs";

const E = (process.env.NEARDUP_ENGINE_URL ?? "").split(",")[0]!.trim();
if (!E) throw new Error("bench/mapping-cost.ts needs NEARDUP_ENGINE_URL");
const SOURCE = process.env.NEARDUP_BENCH_SOURCE ?? "bench-dedup";
const ROUNDS = Number(process.env.ROUNDS ?? 6);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const call = async (method: string, path: string, body?: string, type = "application/json"): Promise<Json> => {
  const res = await fetch(E + path, { method, headers: { "content-type": type }, ...(body === undefined ? {} : { body }) });
  return (await res.json()) as Json;
};
const engineCpu = async () => Object.values((await call("GET", "/_nodes/stats/process")).nodes as Record<string, Json>).reduce((sum, n) => sum + (n.process.cpu.total_in_millis as number), 0);

const contract = JSON.parse(readFileSync(new URL("../mappings/component-template.neardup.json", import.meta.url), "utf8")) as Json;
function mapping(noDocValues: boolean): Json {
  const m = structuredClone(contract.template.mappings) as Json;
  m.properties.text = { type: "text" };
  if (noDocValues) for (const f of ["seg0", "seg1", "seg2", "seg3", "lsh"]) m.properties.neardup.properties[f] = { type: "keyword", doc_values: false };
  return m;
}

const docs: Json[] = [];
let page = await call("POST", `/${SOURCE}/_search?scroll=1m`, JSON.stringify({ size: 2000, sort: ["_doc"] }));
while (page.hits.hits.length > 0) {
  for (const h of page.hits.hits as Json[]) docs.push(h._source as Json);
  page = await call("POST", "/_search/scroll", JSON.stringify({ scroll: "1m", scroll_id: page._scroll_id }));
}
if (docs.length === 0) throw new Error(`no documents in ${SOURCE}: write some with bench/service.ts (NEARDUP_BENCH_KEEP=1)`);
console.log(`${docs.length} documents from ${SOURCE}, ${ROUNDS} rounds`);

for (let round = 0; round < ROUNDS; round++) {
  for (const kind of round % 2 ? ["B", "A"] : ["A", "B"]) {
    const name = `mapping-cost-${kind.toLowerCase()}`;
    await fetch(`${E}/${name}`, { method: "DELETE" });
    await call("PUT", `/${name}`, JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: "1s" }, mappings: mapping(kind === "B") }));
    await new Promise((r) => setTimeout(r, 1000));
    const cpu0 = await engineCpu();
    const t0 = performance.now();
    for (let i = 0; i < docs.length; i += 500) {
      const body = docs.slice(i, i + 500).map((d, n) => `{"index":{"_id":"${i + n}"}}\n${JSON.stringify(d)}\n`).join("");
      const out = await call("POST", `/${name}/_bulk`, body, "application/x-ndjson");
      if (out.errors) throw new Error(JSON.stringify((out.items as Json[]).find((x) => x.index.error)));
    }
    const wall = performance.now() - t0;
    await call("POST", `/${name}/_refresh`);
    const cpu1 = await engineCpu();
    await call("POST", `/${name}/_forcemerge?max_num_segments=1&flush=true`);
    await new Promise((r) => setTimeout(r, 3000));
    const bytes = (await call("GET", `/${name}/_stats/store`)).indices[name].primaries.store.size_in_bytes as number;
    console.log(`round ${round} ${kind === "A" ? "A (contract v4)" : "B (no doc values on seg0-3, lsh)"}: engine CPU ${((cpu1 - cpu0) / docs.length).toFixed(3)} ms/doc, ${Math.round((docs.length / wall) * 1000)} docs/s, ${Math.round(bytes / docs.length)} bytes/doc`);
    await fetch(`${E}/${name}`, { method: "DELETE" });
  }
}
