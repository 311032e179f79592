/**
 * `/livez` latency while the API is busy (audit 18, F3): NEARDUP_BENCH_CLIENTS clients (default 32) each send
 * `POST /v1/documents/_bulk` of 100 random 300-character Chinese texts in a loop for NEARDUP_BENCH_SECONDS
 * (default 20), while `/livez` is asked every 200 ms. Prints the bulks answered by status and `/livez`'s p50,
 * p90 and max. Against a sidecar you run (it writes into its NEARDUP_INDEX):
 *
 *   NEARDUP_BENCH_URL=http://127.0.0.1:8080 npx tsx bench/livez-load.ts
 */
const base = (process.env.NEARDUP_BENCH_URL ?? "").replace(/\/$/, "");
if (!base) throw new Error("bench/livez-load.ts needs NEARDUP_BENCH_URL (a running sidecar)");
const clients = Number(process.env.NEARDUP_BENCH_CLIENTS ?? 32);
const seconds = Number(process.env.NEARDUP_BENCH_SECONDS ?? 20);
const chars = "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从";
const randomText = (n: number) => Array.from({ length: n }, () => chars[Math.floor(Math.random() * chars.length)]).join("");

let stop = false;
const codes: Record<string, number> = {};
async function client(): Promise<void> {
  while (!stop) {
    const items = Array.from({ length: 100 }, () => ({ text: randomText(300) }));
    const res = await fetch(`${base}/v1/documents/_bulk`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items }) }).catch(() => undefined);
    const key = String(res?.status ?? "error");
    codes[key] = (codes[key] ?? 0) + 1;
    await res?.arrayBuffer().catch(() => undefined);
  }
}
const latencies: number[] = [];
async function probe(): Promise<void> {
  while (!stop) {
    const t = performance.now();
    await fetch(`${base}/livez`).then((r) => r.text());
    latencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 200));
  }
}
setTimeout(() => (stop = true), seconds * 1000);
await Promise.all([...Array.from({ length: clients }, client), probe()]);
latencies.sort((a, b) => a - b);
const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(0);
console.log(`bulks answered: ${JSON.stringify(codes)}; /livez (${latencies.length} asked): p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
