/**
 * Modern Chinese text for the core benchmarks: Debian `fortunes-zh`
 * (/usr/share/games/fortunes/chinese, 2 MB). `bench/install-corpora.sh`
 * installs it (apt-get, as root); without it the benches fall back to
 * npm `chinese-poetry` (classical, already in node_modules) and say so.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const FORTUNES = "/usr/share/games/fortunes/chinese";

/** The fortunes with ANSI colour codes, `%` separators and attributions removed; null when not installed. */
export function loadFortunes(): string[] | null {
  if (!existsSync(FORTUNES)) return null;
  return readFileSync(FORTUNES, "utf8")
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split(/^%$/m)
    .map((f) => f.replace(/^\s*--.*$/gm, "").trim())
    .filter((f) => f !== "");
}

/** 全唐诗 poems from npm `chinese-poetry`, lines joined (the fallback corpus). */
export function loadTangPoems(): string[] {
  const dir = join(import.meta.dirname, "..", "node_modules", "chinese-poetry", "dist", "quantangshi");
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((x) => /^poet\.tang\.\d+\.json$/.test(x)).sort()) {
    for (const p of JSON.parse(readFileSync(join(dir, f), "utf8")) as { paragraphs?: string[] }[]) {
      const t = (p.paragraphs ?? []).join("").trim();
      if (t !== "") out.push(t);
    }
  }
  return out;
}

/** The benchmark corpus as one string and its name: fortunes-zh when installed, else 全唐诗. */
export function loadBenchCorpus(): { name: string; text: string } {
  const fortunes = loadFortunes();
  if (fortunes !== null) return { name: "Debian fortunes-zh", text: fortunes.join("\n") };
  return { name: "chinese-poetry 全唐诗 (fortunes-zh not installed: bash bench/install-corpora.sh)", text: loadTangPoems().join("\n") };
}

/** `count` texts of exactly `length` code points of `corpus` (its code points), taken at spread-out offsets. */
export function windows(corpus: string[], length: number, count: number): string[] {
  const out: string[] = [];
  const step = Math.max(1, Math.floor((corpus.length - length) / count));
  for (let i = 0; i < count; i++) out.push(corpus.slice(i * step, i * step + length).join(""));
  return out;
}
