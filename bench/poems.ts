/** Tang poems from the `chinese-poetry` package, for the benchmarks: one text a poem, at least 10 characters, none with missing glyphs (□). */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** The poems of the first `files` files of the Tang collection (default: all), in file order. */
export function loadPoems(files = Infinity): string[] {
  const dir = join(import.meta.dirname, "..", "node_modules", "chinese-poetry", "dist", "quantangshi");
  const poems: string[] = [];
  for (const f of readdirSync(dir).filter((x) => /^poet\.tang\.\d+\.json$/.test(x)).sort().slice(0, files)) {
    for (const p of JSON.parse(readFileSync(join(dir, f), "utf8")) as { paragraphs?: string[] }[]) {
      const text = (p.paragraphs ?? []).join("");
      if (text.length >= 10 && !text.includes("□")) poems.push(text);
    }
  }
  return poems;
}
