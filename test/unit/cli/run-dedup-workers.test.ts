// Issue 10: `neardup dedup --workers N` gives exactly the sequential run's output.
import { createReadStream, readFileSync } from "node:fs";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import type { Fingerprinter } from "../../../src/core/fingerprinter.js";
import { runDedup } from "../../../src/cli/run-dedup.js";
import type { RunDedupOptions } from "../../../src/cli/run-dedup.js";
import { createAnalyzerPool } from "../../../src/workers/index.js";
import type { Analyzer } from "../../../src/workers/index.js";
import { loadTangPoems } from "../../../bench/corpus.js";

const FIXTURES = new URL("../../fixtures/cli/", import.meta.url);
let fingerprinter: Fingerprinter;
let pool: Analyzer;
beforeAll(async () => {
  fingerprinter = await createFingerprinter();
  pool = await createAnalyzerPool(fingerprinter, { threads: 2 });
}, 120_000);
afterAll(async () => {
  await pool?.close();
});

async function run(input: () => Readable, options: Partial<RunDedupOptions> = {}) {
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
  const reports: string[] = [];
  const progress: number[] = [];
  const result = await runDedup(
    fingerprinter,
    { fields: { textField: "text", idField: "id", timeUnit: "ms" }, ...options },
    { input: input(), output, report: (m) => reports.push(m), progress: (d) => progress.push(d) },
  );
  output.end();
  return { result, output: chunks.join(""), reports, progress };
}

/** Sequential run, then the same input through the pool: every byte of output, every report, the summary. */
async function expectSameWithPool(input: () => Readable, options: Partial<RunDedupOptions> = {}) {
  const sequential = await run(input, options);
  const pooled = await run(input, { ...options, analyzer: pool });
  expect(pooled.output).toBe(sequential.output);
  expect(pooled.reports).toEqual(sequential.reports);
  expect(pooled.result).toEqual(sequential.result);
  expect(pooled.progress).toEqual(sequential.progress);
  return sequential;
}

describe("runDedup with a pool of 2 workers", () => {
  it("news.jsonl: same verdicts, bad lines and summary as the sequential run", async () => {
    const s = await expectSameWithPool(() => createReadStream(new URL("news.jsonl", FIXTURES)));
    expect(s.result.summary.duplicates).toBe(5);
    expect(s.reports).toHaveLength(2);
  });

  it("--strict stops at the same line with the same output", async () => {
    const s = await expectSameWithPool(() => createReadStream(new URL("news.jsonl", FIXTURES)), { strict: true });
    expect(s.result.stoppedAtLine).toBe(8);
  });

  it("a stream of 3,000 poems with copies and variants in flight at once: identical output", async () => {
    // Each poem, then later (within a few batches) a copy with one character
    // changed, so near-duplicates are analyzed concurrently on both threads.
    const poems = loadTangPoems().filter((p) => p.length >= 20 && !p.includes("□")).slice(0, 2000);
    const lines: string[] = [];
    for (let i = 0; i < poems.length; i++) {
      lines.push(JSON.stringify({ id: `p${i}`, text: poems[i] }));
      if (i % 2 === 0 && i >= 40) {
        const src = poems[i - 40 + (i % 7)]!;
        lines.push(JSON.stringify({ id: `v${i}`, text: src.slice(0, 5) + "之" + src.slice(6) }));
      }
      if (i % 97 === 0) lines.push(`{"id":"bad${i}","text":"broken \\ud800"}`);
    }
    const text = `${readFileSync(new URL("news.jsonl", FIXTURES), "utf8").trimEnd()}\n${lines.join("\n")}`;
    const s = await expectSameWithPool(() => Readable.from([text]));
    expect(s.result.summary.documents).toBeGreaterThan(2900);
    expect(s.result.summary.duplicates).toBeGreaterThan(900);
    expect(s.reports.length).toBeGreaterThan(20);
  }, 300_000);

  it("windows by document count give the same output too", async () => {
    await expectSameWithPool(() => createReadStream(new URL("news.jsonl", FIXTURES)), { windowDocs: 5 });
  });
});
