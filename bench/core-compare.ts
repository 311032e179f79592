/**
 * Fingerprint rate of this checkout's core against another checkout's (e.g.
 * main before a change), on the same texts in the same run: 10 chunks, each
 * timed with both (order alternating), median CPU time per chunk, and every
 * fingerprint compared.
 *
 *   npx tsx bench/core-compare.ts /work/main [count] [length]    # default 20000 200
 *
 * Texts: windows of `length` code points of the bench corpus (bench/corpus.ts);
 * at 20,000 x 200 they overlap, at 3,000 x 200 they are distinct.
 *
 * Both cores share one process, and its figures move by up to 15% between
 * runs of the same code (an A/A run: 0.98x and 1.13x): for a change of a few
 * per cent, use bench/core-ab.ts (a process a round).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as ours from "../src/core/index.js";
import { loadBenchCorpus, windows } from "./corpus.js";

type Core = typeof ours;

export async function run(other: string, count = 20_000, length = 200): Promise<void> {
  const theirs = (await import(pathToFileURL(join(other, "src", "core", "index.ts")).href)) as Core;
  const corpus = Array.from(loadBenchCorpus().text);
  const texts = windows(corpus, length, count);
  const half = corpus.slice(corpus.length >> 1);
  const warm = Array.from({ length: 200 }, (_, i) => half.slice(i * 1000, i * 1000 + length).join(""));
  const before = await theirs.createFingerprinter();
  const after = await ours.createFingerprinter();
  for (const t of warm) {
    before.analyze(t);
    after.analyze(t);
  }
  const cpu = (fn: () => void): number => {
    const c = process.cpuUsage();
    fn();
    const u = process.cpuUsage(c);
    return (u.user + u.system) / 1000;
  };
  const chunk = count / 10;
  const tb: number[] = [];
  const ta: number[] = [];
  let differ = 0;
  for (let c = 0; c < 10; c++) {
    const part = texts.slice(c * chunk, (c + 1) * chunk);
    const hb: string[] = [];
    const ha: string[] = [];
    const runBefore = (): number => tb.push(cpu(() => part.forEach((t) => hb.push(before.analyze(t).hex))));
    const runAfter = (): number => ta.push(cpu(() => part.forEach((t) => ha.push(after.analyze(t).hex))));
    if (c % 2 === 0) {
      runBefore();
      runAfter();
    } else {
      runAfter();
      runBefore();
    }
    for (let i = 0; i < part.length; i++) if (ha[i] !== hb[i]) differ++;
  }
  const med = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
  const rate = (ms: number): string => ((chunk / ms) * 1000).toLocaleString("en-US", { maximumFractionDigits: 0 });
  console.log(
    `${length}-char texts x ${count}: ${other} ${rate(med(tb))}/s, this checkout ${rate(med(ta))}/s (median CPU time of 10 chunks), ratio ${(med(tb) / med(ta)).toFixed(2)}x; ${differ} fingerprints differ`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [other, count, length] = process.argv.slice(2);
  if (other === undefined) throw new Error("usage: npx tsx bench/core-compare.ts <other checkout> [count] [length]");
  await run(other, Number(count ?? 20_000), Number(length ?? 200));
}
