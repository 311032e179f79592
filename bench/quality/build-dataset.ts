/**
 * Writes the quality pair set as JSONL (one Pair a line) to
 * bench/out/quality/pairs.jsonl. Usage: tsx bench/quality/build-dataset.ts [seed]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildPairs, DEFAULT_SIZES } from "./dataset.js";
import type { Pair, Sizes } from "./dataset.js";
import { loadChinese, loadEnglish } from "./sources.js";

export const OUT_DIR = join(import.meta.dirname, "..", "out", "quality");

export function writeDataset(seed: number, sizes: Sizes = DEFAULT_SIZES): { pairs: Pair[]; path: string } {
  const pairs = buildPairs([loadChinese(), loadEnglish()], seed, sizes);
  mkdirSync(OUT_DIR, { recursive: true });
  const path = join(OUT_DIR, "pairs.jsonl");
  writeFileSync(path, pairs.map((p) => JSON.stringify(p)).join("\n") + "\n");
  return { pairs, path };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seed = Number(process.argv[2] ?? 20260601);
  const { pairs, path } = writeDataset(seed);
  const counts = new Map<string, number>();
  for (const p of pairs) counts.set(`${p.lang} ${p.bucket} ${p.tier}`, (counts.get(`${p.lang} ${p.bucket} ${p.tier}`) ?? 0) + 1);
  for (const [k, v] of counts) console.log(k.padEnd(32), v);
  console.log(`${pairs.length} pairs -> ${path}`);
}
