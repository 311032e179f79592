/**
 * The proxy's `_bulk` parse on a large body: how long the event loop is held.
 * Baseline in the same run: the whole body parsed in one synchronous piece
 * (`parseBulk`, as the proxy did before it parsed in slices). Measured: the
 * wall time of each, and the longest event-loop delay while each runs
 * (the longest gap between turns of a 1 ms timer), which is what other
 * requests and `/livez` wait.
 *
 *   npx tsx bench/proxy-parse.ts            # 2M delete lines (82 MB)
 *   LINES=500000 npx tsx bench/proxy-parse.ts
 */
import { parseBulk, parseBulkInSlices } from "../src/proxy/ndjson.js";

const lines = Number(process.env.LINES ?? 2_000_000);
const rounds = Number(process.env.ROUNDS ?? 3);
const body = '{"delete":{"_index":"logs-1","_id":"x"}}\n'.repeat(lines);

/** Runs `run` while a 1 ms timer, standing in for other requests, records the longest gap between its turns. */
async function measure(run: () => Promise<unknown>): Promise<{ ms: number; maxDelayMs: number }> {
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 5));
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(timer);
  return { ms, maxDelayMs: maxGap };
}

console.log(`proxy _bulk parse, ${lines.toLocaleString("en")} delete lines (${(body.length / 1e6).toFixed(0)} MB), ${rounds} interleaved rounds`);
for (let round = 1; round <= rounds; round++) {
  const whole = await measure(async () => parseBulk(body, undefined));
  const sliced = await measure(() => parseBulkInSlices(body, undefined));
  console.log(
    `  round ${round}: one piece (baseline) ${whole.ms.toFixed(0)} ms, longest loop delay ${whole.maxDelayMs.toFixed(0)} ms; ` +
      `slices ${sliced.ms.toFixed(0)} ms, longest loop delay ${sliced.maxDelayMs.toFixed(0)} ms; ` +
      `delay ratio ${(whole.maxDelayMs / sliced.maxDelayMs).toFixed(1)}x`,
  );
}
