/**
 * Can this machine run two threads at once right now? The same CPU-bound
 * integer loop (2e9 steps) on one worker thread, then split over two, 3 rounds.
 * On two free cores the second time is about half the first; on a machine
 * shared with other work it is not, and then no pool benchmark can show a
 * speed-up either. Run it beside bench/pool.ts and bench/cli.ts.
 *
 *   npx tsx bench/parallel-check.ts
 */
import { Worker } from "node:worker_threads";
import { loadavg } from "node:os";

const CODE = `const { parentPort } = require("node:worker_threads");
parentPort.on("message", (n) => { let x = 0; for (let i = 0; i < n; i++) x = (x + Math.imul(i, 2654435761)) | 0; parentPort.postMessage(x); });`;

async function spin(threads: number, total: number): Promise<number> {
  const workers = Array.from({ length: threads }, () => new Worker(CODE, { eval: true }));
  const t = performance.now();
  await Promise.all(workers.map((w) => new Promise((done) => {
    w.once("message", done);
    w.postMessage(total / threads);
  })));
  const ms = performance.now() - t;
  await Promise.all(workers.map((w) => w.terminate()));
  return ms;
}

console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at start`);
for (let r = 0; r < 3; r++) {
  const one = await spin(1, 2e9);
  const two = await spin(2, 2e9);
  console.log(`round ${r + 1}: 1 thread ${one.toFixed(0)} ms, 2 threads ${two.toFixed(0)} ms, speed-up ${(one / two).toFixed(2)}x`);
}
console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} at end`);
