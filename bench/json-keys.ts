/**
 * The repeated-key check's cost on a bulk body (src/server/json-keys.ts, audit 18, F5), beside decoding the
 * same body once (what the JSON parser does anyway). No assertion on time.
 *
 *   npx tsx bench/json-keys.ts
 */
import { findDuplicateKey } from "../src/server/json-keys.js";

const items = Array.from({ length: 500 }, (_, i) => ({ id: `doc-${i}`, text: "床前明月光，疑是地上霜。举头望明月，低头思故乡。".repeat(20), time: 1_700_000_000_000 + i, fields: { a: 1, b: "x" } }));
const text = JSON.stringify({ items });
const body = Buffer.from(text);
console.log(`bulk of ${items.length} documents, ${body.length} bytes`);
for (let round = 1; round <= 5; round++) {
  const t0 = performance.now();
  if (findDuplicateKey(text) !== undefined) throw new Error("the bench body has no repeated key");
  const t1 = performance.now();
  body.toString("utf8");
  const t2 = performance.now();
  console.log(`round ${round}: scan ${(t1 - t0).toFixed(2)} ms, decode ${(t2 - t1).toFixed(2)} ms`);
}
