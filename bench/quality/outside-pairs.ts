/**
 * Pairwise verdicts on an outside labelled pair set (one JSON object a line:
 * `a`, `b`, `label` 1/0 or "dup"/"not", `class`), with the fingerprinter of
 * this tree or of another checkout, for before/after figures of a change:
 *
 *   npx tsx bench/quality/outside-pairs.ts <pairs.jsonl> [<tree>] [--out <verdicts.jsonl>]
 *
 * `<tree>` is a checkout of neardup (default: this one); its
 * `src/core/fingerprinter.ts` is loaded, so one copy of this script measures
 * any commit (a worktree or clone beside this one). For each pair it runs
 * `compare(analyze(a), analyze(b))` at the default options and prints
 * precision, recall and F1 over all pairs, and per class the pairs called
 * duplicates (recall for a class of duplicates, false-positive rate for a
 * class of different texts). A pair whose side is refused (nothing left after
 * normalization) counts as "not a duplicate" and is counted apart.
 * `--out` writes one line per pair (`id`, `class`, `label`, `duplicate`,
 * `rule`) to compare two runs pair by pair.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Core from "../../src/core/fingerprinter.js";
import { score } from "./metrics.js";

interface Pair {
  a: string;
  b: string;
  label: boolean;
  cls: string;
  id: string;
}

const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt >= 0 ? args.splice(outAt, 2)[1] : undefined;
const [pairsFile, tree = resolve(import.meta.dirname, "..", "..")] = args;
if (pairsFile === undefined) {
  console.error("usage: npx tsx bench/quality/outside-pairs.ts <pairs.jsonl> [<tree>] [--out <verdicts.jsonl>]");
  process.exit(2);
}

function label(v: unknown): boolean {
  if (v === 1 || v === true || v === "1" || v === "dup" || v === "duplicate") return true;
  if (v === 0 || v === false || v === "0" || v === "not" || v === "different") return false;
  throw new Error(`unknown label ${JSON.stringify(v)}`);
}

const pairs: Pair[] = readFileSync(pairsFile, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l, i) => {
    const r = JSON.parse(l) as { a: string; b: string; label: unknown; class?: string; id?: unknown };
    return { a: r.a, b: r.b, label: label(r.label), cls: r.class ?? "all", id: String(r.id ?? i) };
  });

const core = (await import(pathToFileURL(resolve(tree, "src/core/fingerprinter.ts")).href)) as typeof Core;
const fp = await core.createFingerprinter();

interface Count {
  label: boolean;
  n: number;
  duplicate: number;
  refused: number;
}
const classes = new Map<string, Count>();
const lines: string[] = [];
const decisions: boolean[] = [];
const t0 = performance.now();
for (const p of pairs) {
  let duplicate = false;
  let rule: string | null = null;
  let refused = false;
  try {
    const v = fp.compare(fp.analyze(p.a, "a"), fp.analyze(p.b, "b"));
    duplicate = v.duplicate;
    rule = v.rule;
  } catch {
    refused = true;
  }
  const c = classes.get(p.cls) ?? { label: p.label, n: 0, duplicate: 0, refused: 0 };
  c.n++;
  if (duplicate) c.duplicate++;
  if (refused) c.refused++;
  classes.set(p.cls, c);
  decisions.push(duplicate);
  lines.push(JSON.stringify({ id: p.id, class: p.cls, label: p.label, duplicate, rule }));
}
const seconds = (performance.now() - t0) / 1000;

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "-");
const { tp, fp: fpos, fn, precision, recall, f1 } = score(decisions, pairs.map((p) => (p.label ? 1 : 0)));
console.log(`tree ${tree}, fingerprint ${fp.version}; ${pairs.length} pairs from ${pairsFile} in ${seconds.toFixed(1)} s\n`);
console.log(`all: precision ${f3(precision)}, recall ${f3(recall)}, F1 ${f3(f1)} (TP ${tp}, FP ${fpos}, FN ${fn})\n`);
console.log("| class | label | pairs | called duplicate | recall or false-positive rate | refused |");
console.log("|---|---|---:|---:|---:|---:|");
const sorted = [...classes].sort(([x, a], [y, b]) => Number(b.label) - Number(a.label) || (x < y ? -1 : 1));
for (const [name, c] of sorted) console.log(`| ${name} | ${c.label ? "dup" : "not"} | ${c.n} | ${c.duplicate} | ${f3(c.duplicate / c.n)} | ${c.refused} |`);
if (out !== undefined) writeFileSync(out, lines.join("\n") + "\n");
