// The real process: exit codes and help text (`npx tsx src/cli/main.ts`).
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_VERDICT_OPTIONS } from "../../../src/core/verdict.js";

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

  it("dedup takes the service's verdict file (NEARDUP_VERDICT_FILE, or --verdict-file): a rule it turns off decides nothing (audit 12: the CLI always used the built-in rules)", async () => {
    const whole =
      "The committee met on Tuesday to review the budget for next year. After a long debate it approved the plan for new bicycle lanes across the city centre, and asked for a report on costs by March. Members also discussed the library's opening hours and the state of the old swimming pool.";
    const input = join(dir, "cut.jsonl");
    writeFileSync(input, [{ id: "whole", text: whole }, { id: "cut", text: whole.slice(0, Math.round(whole.length * 0.75)) }].map((d) => JSON.stringify(d)).join("\n") + "\n");
    const off = join(dir, "no-contained.json");
    const buckets = DEFAULT_VERDICT_OPTIONS.buckets.map((b) => ({ ...b, maxLength: b.maxLength === Infinity ? null : b.maxLength, minContainment: null, minContainedShare: null }));
    writeFileSync(off, JSON.stringify({ middleVeto: DEFAULT_VERDICT_OPTIONS.middleVeto, buckets }));
    const verdictOf = (stdout: string) => (JSON.parse(stdout.trim().split("\n")[1]!) as { status: string; reason: string | null });
    const builtIn = await cli(["dedup", input, "--workers", "0"]);
    expect(verdictOf(builtIn.stdout)).toMatchObject({ status: "duplicate", reason: "medium.contained" });
    const fromEnv = await cli(["dedup", input, "--workers", "0"], { NEARDUP_VERDICT_FILE: off });
    expect(verdictOf(fromEnv.stdout).status).toBe("original");
    const fromFlag = await cli(["dedup", input, "--workers", "0", "--verdict-file", off]);
    expect(verdictOf(fromFlag.stdout).status).toBe("original");
    const bad = await cli(["dedup", input, "--verdict-file", join(dir, "missing.json")]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("--verdict-file");
  }, 120_000);

  it("--version prints the package's version and the fingerprint version, exit 0", async () => {
    const pkg = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")) as { version: string };
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version} (fingerprint nd4)\n`);
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
    expect(fit.stderr).toMatch(/fingerprint version nd4\+idf\.[0-9a-f]{8}/);
    expect(JSON.parse(readFileSync(table, "utf8"))).toMatchObject({ format: "neardup-idf", version: 1, n: 11 });
    const dedup = await cli(["dedup", "test/fixtures/cli/news.jsonl", "--idf", table]);
    expect(dedup.code).toBe(0);
    expect(dedup.stdout.trim().split("\n")).toHaveLength(11);
    const bad = await cli(["dedup", "test/fixtures/cli/news.jsonl", "--idf", join(dir, "missing.json")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`cannot read IDF file ${join(dir, "missing.json")}`);
  }, 180_000);
});
