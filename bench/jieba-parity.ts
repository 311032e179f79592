/**
 * Segmenter comparison (issue 10): `nodejs-jieba` (cppjieba, the spec's
 * segmenter) against `@node-rs/jieba` (jieba-rs, prebuilt binaries) on real
 * Chinese text: how many texts are cut differently, how many tokens differ,
 * how many 64-bit fingerprints would change, and cuts/s of each, interleaved
 * in the same run.
 *
 *   npx tsx bench/jieba-parity.ts
 *
 * Text: every poem of npm `chinese-poetry` (全唐诗, 宋词) and every fortune of
 * Debian `fortunes-zh` when it is installed, normalized as in spec §2.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Jieba } from "@node-rs/jieba";
import { dict } from "@node-rs/jieba/dict.js";
import { buildFingerprinter, createFeatureHasher, normalize } from "../src/core/index.js";
import { loadJiebaResources } from "../src/resources/jieba.js";
import { loadFortunes } from "./corpus.js";

const POETRY = join(import.meta.dirname, "..", "node_modules", "chinese-poetry", "dist");

interface Poem {
  paragraphs?: string[];
}

/** All poems of 全唐诗 (`quantangshi/poet.*.json`) and 宋词 (`songci/ci.song.*.json`), lines joined. */
function loadPoetry(): string[] {
  const out: string[] = [];
  for (const [dir, pattern] of [["quantangshi", /^poet\.(tang|song)\.\d+\.json$/], ["songci", /^ci\.song\.\d+\.json$/]] as const) {
    for (const f of readdirSync(join(POETRY, dir)).filter((x) => pattern.test(x)).sort()) {
      for (const p of JSON.parse(readFileSync(join(POETRY, dir, f), "utf8")) as Poem[]) {
        const t = (p.paragraphs ?? []).join("").trim();
        if (t !== "") out.push(t);
      }
    }
  }
  return out;
}

const fmt = (x: number, d = 0): string => x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

export async function run(): Promise<void> {
  const resources = await loadJiebaResources();
  const cpp = resources.segmentHan;
  const rs = Jieba.withDict(dict);
  const rsCut = (t: string): string[] => rs.cut(t, true);
  const hasher = await createFeatureHasher();
  const fpCpp = buildFingerprinter({}, resources, hasher);
  const fpRs = buildFingerprinter({}, { ...resources, segmentHan: rsCut }, hasher);

  const corpora: [string, string[]][] = [["chinese-poetry (全唐诗 + 宋词)", loadPoetry()]];
  const fortunes = loadFortunes();
  if (fortunes !== null) corpora.push(["fortunes-zh", fortunes]);

  console.log("| corpus | texts | chars | texts cut differently | tokens of nodejs-jieba not in @node-rs/jieba's cut | 64-bit fingerprints that differ | nodejs-jieba cuts/s | @node-rs/jieba cuts/s | ratio |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const [name, raw] of corpora) {
    const texts = raw.map(normalize).filter((t) => t !== "");
    let chars = 0;
    let differ = 0;
    let tokens = 0;
    let tokenDiff = 0;
    let fpDiff = 0;
    const examples: string[] = [];
    for (const t of texts) {
      chars += t.length;
      const a = cpp(t);
      const b = rsCut(t);
      tokens += a.length;
      if (a.length === b.length && a.every((w, i) => w === b[i])) continue;
      differ++;
      // Tokens by position: a token counts as different when the other cut has no token at the same offset with the same text.
      const starts = new Set<string>();
      let o = 0;
      for (const w of b) {
        starts.add(`${o}:${w}`);
        o += w.length;
      }
      o = 0;
      for (const w of a) {
        if (!starts.has(`${o}:${w}`)) tokenDiff++;
        o += w.length;
      }
      if (examples.length < 5) examples.push(`${a.join("/")}  vs  ${b.join("/")}`);
      if (t.length <= 100_000 && fpCpp.analyze(t).hex !== fpRs.analyze(t).hex) fpDiff++;
    }
    // Speed: 5 interleaved rounds over a 20,000-text sample, median per side.
    const sample = texts.slice(0, 20_000);
    const tc: number[] = [];
    const tr: number[] = [];
    for (let r = 0; r < 5; r++) {
      let t0 = performance.now();
      for (const t of sample) cpp(t);
      tc.push(performance.now() - t0);
      t0 = performance.now();
      for (const t of sample) rsCut(t);
      tr.push(performance.now() - t0);
    }
    const med = (xs: number[]): number => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
    const [c, r] = [med(tc), med(tr)];
    console.log(
      `| ${name} | ${fmt(texts.length)} | ${fmt(chars)} | ${fmt(differ)} (${fmt((differ / texts.length) * 100, 1)}%) | ${fmt(tokenDiff)} of ${fmt(tokens)} (${fmt((tokenDiff / tokens) * 100, 2)}%) | ${fmt(fpDiff)} (${fmt((fpDiff / texts.length) * 100, 1)}%) | ${fmt((sample.length / c) * 1000)} | ${fmt((sample.length / r) * 1000)} | ${fmt(c / r, 2)}x |`,
    );
    for (const e of examples) console.log(`  e.g. ${e.slice(0, 200)}`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
