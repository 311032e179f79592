// The real process: exit codes and help text (`npx tsx src/cli/main.ts`).
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const cwd = new URL("../../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "neardup-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run("npx", ["tsx", "src/cli/main.ts", ...args], { cwd, maxBuffer: 1 << 24, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("neardup process", () => {
  it("dedup --out: exit 0, verdicts in the file, bad lines and summary on stderr", async () => {
    const out = join(dir, "v.jsonl");
    const r = await cli(["dedup", "test/fixtures/cli/news.jsonl", "--id-field", "id", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(readFileSync(out, "utf8").trim().split("\n")).toHaveLength(11);
    expect(r.stderr).toContain("neardup: line 8: not valid JSON");
    expect(r.stderr).toMatch(/documents:\s+11\n/);
    expect(r.stderr).toMatch(/duplicates:\s+[45] \((36\.4|45\.5)%\)/);
  }, 120_000);

  it("--version prints the package's version and the fingerprint version, exit 0", async () => {
    const pkg = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")) as { version: string };
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version} (fingerprint nd2)\n`);
  }, 120_000);

  it("--strict: exit 1 at the first bad line", async () => {
    const r = await cli(["dedup", "test/fixtures/cli/news.jsonl", "--strict"]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(6);
    expect(r.stderr).toContain("stopped at line 8 (--strict)");
  }, 120_000);

  it("help, a bad flag value and a missing file", async () => {
    const help = await cli(["dedup", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--text-field <name>");
    expect(help.stdout).toContain("Exit status");
    const bad = await cli(["dedup", "x.jsonl", "--radius", "99"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--radius must be an integer in 0..64");
    const missing = await cli(["dedup", join(dir, "nope.jsonl")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file");
    expect(missing.stderr).not.toMatch(/Unhandled|node:events|at /); // one line, no stack trace after it (ops audit)
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    const folder = await cli(["dedup", dir]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain("is a directory, not a file");
    const batch = await cli(["backfill", "some-index", "--batch-size", "0"]);
    expect(batch.code).toBe(1);
    expect(batch.stderr).toContain("--batch-size must be an integer in 1..10000"); // 0 did nothing and marked the run complete
  }, 120_000);

  it("backfill with a NEARDUP_WINDOW_HOURS that is not a number (its --window default) is one line naming it, exit 1, before any engine is asked", async () => {
    const r = await cli(["backfill", "some-index", "--engine-url", "http://127.0.0.1:1", "--no-progress"], { NEARDUP_WINDOW_HOURS: "abc" });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('neardup: NEARDUP_WINDOW_HOURS="abc" is invalid: Invalid input: expected number, received NaN');
  }, 120_000);

  it("--out: never the input file (it was emptied before being read), and a path it cannot write is one line, not a stack (CLI audit)", async () => {
    const input = join(dir, "same.jsonl");
    copyFileSync("test/fixtures/cli/news.jsonl", input);
    const before = readFileSync(input, "utf8");
    const same = await cli(["dedup", input, "--out", input]);
    expect(same.code).toBe(1);
    expect(same.stderr).toContain("is the input file");
    expect(readFileSync(input, "utf8")).toBe(before);
    for (const out of [join(dir, "no", "such", "dir.jsonl"), dir]) {
      const bad = await cli(["dedup", input, "--out", out]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain(`cannot write --out ${out}`);
      expect(bad.stderr).not.toMatch(/Unhandled|node:events|\n\s+at /);
    }
  }, 120_000);
});

describe("neardup idf fit, then dedup --idf (issue 14)", () => {
  it("writes a versioned table and dedup loads it; a bad --idf path exits 1 naming it", async () => {
    const table = join(dir, "idf.json");
    const fit = await cli(["idf", "fit", "test/fixtures/cli/news.jsonl", "--out", table]);
    expect(fit.code).toBe(0);
    expect(fit.stderr).toMatch(/documents: 11, terms: \d+ kept of \d+, bad lines: 2/);
    expect(fit.stderr).toMatch(/fingerprint version nd2\+idf\.[0-9a-f]{8}/);
    expect(JSON.parse(readFileSync(table, "utf8"))).toMatchObject({ format: "neardup-idf", version: 1, n: 11 });
    const dedup = await cli(["dedup", "test/fixtures/cli/news.jsonl", "--idf", table]);
    expect(dedup.code).toBe(0);
    expect(dedup.stdout.trim().split("\n")).toHaveLength(11);
    const bad = await cli(["dedup", "test/fixtures/cli/news.jsonl", "--idf", join(dir, "missing.json")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`cannot read IDF file ${join(dir, "missing.json")}`);
  }, 180_000);
});
