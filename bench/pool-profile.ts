/**
 * One worker of the analysis pool alone, for profiling every thread
 * (`node --cpu-prof` writes one profile a thread): 2,000 new bench/service.ts
 * documents to warm up, then 20,000 more through a pool of one worker in
 * requests of 500, the write path's way (no term Maps back). Prints the rate
 * and the process's CPU per text.
 *
 *   node --cpu-prof --cpu-prof-dir=.neardup/pool-prof --cpu-prof-interval 200 --import tsx bench/pool-profile.ts
 *   npx tsx bench/profile-summary.ts .neardup/pool-prof/<the worker's, the largest but one>.cpuprofile
 */
import { createFingerprinter } from "../src/core/index.js";
import { createAnalyzerPool } from "../src/workers/index.js";
import { loadPoems } from "./poems.js";
import { makeDoc } from "./service.js";

const poems = loadPoems();
const fingerprinter = await createFingerprinter();
const pool = await createAnalyzerPool(fingerprinter, { threads: 1 });
let next = 91_000_000; // document numbers the other benches do not use
const fresh = (n: number) => Array.from({ length: n }, () => ({ text: makeDoc(poems, next++) }));
try {
  await pool.analyzeMany(fresh(2000), { vectors: false });
  const texts = fresh(20_000);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < texts.length; i += 500) await pool.analyzeMany(texts.slice(i, i + 500), { vectors: false });
  const used = process.cpuUsage(cpu);
  console.log(`${texts.length} texts through one worker: ${Math.round((texts.length / (performance.now() - started)) * 1000)}/s, CPU ${((used.user + used.system) / texts.length).toFixed(0)} µs a text (all threads)`);
} finally {
  await pool.close();
}
