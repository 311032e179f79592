/**
 * What fingerprint version nd2's normalization steps (markup, URL queries, the
 * traditional-to-simplified fold: docs/fingerprint-spec.md §2), nd3's
 * (social-media decorations, decorations.ts) and nd4's (log time stamps and
 * process ids, timestamps.ts) cost against a whole analysis, measured in the
 * same run on the same texts:
 *
 *   npx tsx bench/normalize-steps.ts
 *
 * Texts: 20,000 windows of 200 characters of the poems (traditional
 * characters: the fold changes most of them), the same folded first (simplified
 * text: the fold changes nothing), the poems wrapped in HTML with a link, and
 * short posts (the first 30 characters of each window) with the decorations of
 * a repost (`转发微博 @李娜 ... 👍 #好物分享# https://t.cn/...`), which nd3 removes,
 * and syslog lines (`2024-06-26T18:23:55.099Z sshd[4242]: ` and the first 60
 * characters of each window), whose stamp and process id nd4 removes.
 * Each figure is the median of 7 passes.
 */
import { performance } from "node:perf_hooks";
import { foldChineseVariants } from "../src/core/chinese-variants.js";
import { stripDecorations } from "../src/core/decorations.js";
import { createFingerprinter } from "../src/core/index.js";
import { stripMarkup, stripUrlQueries } from "../src/core/markup.js";
import { stripStamps } from "../src/core/timestamps.js";
import { loadPoems } from "./poems.js";

const poems = [...loadPoems(2).join("")]; // code points: a window never cuts a surrogate pair
const at = (i: number) => (i * 97) % (poems.length - 200);
const traditional = Array.from({ length: 20_000 }, (_, i) => poems.slice(at(i), at(i) + 200).join(""));
const simplified = traditional.map(foldChineseVariants);
const html = traditional.map((t, i) => `<div class="post"><p>${t}</p><p>&nbsp;<a href="https://example.org/p/${i}?utm_source=feed&amp;id=${i}">link</a></p></div>`);
const stamp = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 7_777_777).toISOString();
const logs = simplified.map((t, i) => `${stamp(i)} sshd[${1000 + i}]: ${[...t].slice(0, 60).join("")}`);
const social = simplified.map((t, i) => `转发微博 @李娜 ${[...t].slice(0, 30).join("")} 👍 #好物分享# https://t.cn/A6${i.toString(36).padStart(6, "0")}`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function time(run: () => void): number {
  const runs: number[] = [];
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    run();
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

const fp = await createFingerprinter();
for (const t of traditional.slice(0, 2000)) fp.analyze(t); // warm-up: dictionaries, caches, JIT
const rows: string[] = [];
for (const [name, texts] of [["traditional", traditional], ["simplified", simplified], ["HTML with a link", html], ["short reposts (30 characters + decorations)", social], ["log lines (a stamp, a process id, 60 characters)", logs]] as const) {
  let sink = 0;
  const before = time(() => {
    for (const t of texts) sink += t.normalize("NFKC").toLowerCase().length;
  });
  const steps = time(() => {
    for (const t of texts) sink += foldChineseVariants(stripUrlQueries(stripMarkup(t)).normalize("NFKC").toLowerCase()).length;
  });
  const nd3 = time(() => {
    for (const t of texts) sink += stripDecorations(foldChineseVariants(stripUrlQueries(stripMarkup(t)).normalize("NFKC").toLowerCase())).length;
  });
  const nd4 = time(() => {
    for (const t of texts) sink += stripStamps(stripDecorations(foldChineseVariants(stripUrlQueries(stripMarkup(t)).normalize("NFKC").toLowerCase()))).length;
  });
  const analyses = time(() => {
    for (const t of texts) sink += fp.analyze(t).length;
  });
  if (sink < 0) console.log(sink);
  const us = (ms: number) => ((ms * 1000) / texts.length).toFixed(2);
  const share = (ms: number) => `${((100 * ms) / analyses).toFixed(1)}%`;
  rows.push(`| ${name} | ${us(before)} µs | ${us(steps)} µs | ${us(nd3)} µs | ${us(nd4)} µs | ${us(analyses)} µs | ${share(steps - before)} | ${share(nd3 - steps)} | ${share(nd4 - nd3)} |`);
}
console.log("## nd2, nd3 and nd4 normalization steps against a whole analysis (bench/normalize-steps.ts)\n");
console.log(`node ${process.version}; 20,000 texts of about 200 characters (the reposts about 80); median of 7 passes\n`);
console.log("| texts | nd1's NFKC + lower case, a text | nd2's markup + URL + NFKC + lower case + fold | nd3's: the same + decorations | nd4's: the same + stamps | whole nd4 analysis | what nd2 added, share of the analysis | what nd3 added, share | what nd4 added, share |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) console.log(r);
