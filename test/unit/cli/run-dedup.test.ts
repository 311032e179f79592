// `neardup dedup` through its module function on the committed fixtures.
import { createReadStream } from "node:fs";
import { PassThrough, Readable } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import type { Fingerprinter } from "../../../src/core/fingerprinter.js";
import { runDedup } from "../../../src/cli/run-dedup.js";
import type { RunDedupOptions } from "../../../src/cli/run-dedup.js";
import type { DedupRecord } from "../../../src/cli/dedup.js";

const FIXTURES = new URL("../../fixtures/cli/", import.meta.url);
let fingerprinter: Fingerprinter;
beforeAll(async () => {
  fingerprinter = await createFingerprinter();
}, 120_000);

async function run(input: Readable, options: Partial<RunDedupOptions> = {}) {
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
  const reports: string[] = [];
  const result = await runDedup(
    fingerprinter,
    { fields: { textField: "text", idField: "id", timeUnit: "ms" }, ...options },
    { input, output, report: (m) => reports.push(m) },
  );
  output.end();
  const records = chunks
    .join("")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as DedupRecord);
  return { result, records, reports };
}

const verdicts = (records: DedupRecord[]) => records.map((r) => [r.id, r.status, r.duplicate_of]);

describe("runDedup on test/fixtures/cli/news.jsonl", () => {
  it("gives the expected verdicts and reports the bad lines by number", async () => {
    const { result, records, reports } = await run(createReadStream(new URL("news.jsonl", FIXTURES)));
    // t-2 is t-1 with different punctuation: 9 bits apart, beyond the search
    // radius of 3; the LSH band keys find it.
    const t2 = records.find((r) => r.id === "t-2")!;
    expect(t2.distance).toBeGreaterThan(3);
    expect(verdicts(records)).toEqual([
      ["en-1", "original", null],
      ["zh-1", "original", null],
      ["t-1", "original", null],
      ["en-2", "duplicate", "en-1"], // three small edits to a long English text
      ["t-3", "original", null],
      ["en-3", "original", null],
      ["zh-2", "duplicate", "zh-1"], // rewording in a long Chinese text
      ["t-2", "duplicate", "t-1"], // punctuation changed: found by LSH key, 9 bits apart
      ["zh-3", "original", null],
      ["t-4", "duplicate", "t-3"], // one word added to a headline
      ["en-1-copy", "duplicate", "en-1"], // exact copy
    ]);
    const copy = records.at(-1)!;
    expect(copy).toMatchObject({ distance: 0, similarity: 1 });
    expect(copy.reason).toMatch(/\.simhash$/);
    for (const r of records.filter((x) => x.status === "duplicate")) {
      expect(r.distance).toBeGreaterThanOrEqual(0);
      expect(r.similarity).toBeGreaterThan(0.8);
      expect(r.reason).toMatch(/^\w+\.(simhash|cosine|edit|jaccard)$/);
    }
    for (const r of records.filter((x) => x.status === "original")) {
      expect(r).toMatchObject({ duplicate_of: null, distance: null, similarity: null, reason: null });
    }
    expect(reports).toEqual([
      expect.stringMatching(/^line 8: not valid JSON/),
      'line 10: field "text" must be a string, got nothing',
    ]);
    expect(result).toMatchObject({ format: "jsonl", badLines: 2, blankLines: 1 });
    expect(result.summary).toMatchObject({ documents: 11, duplicates: 5 });
    expect(result.summary.largestClusters[0]).toEqual({ id: "en-1", size: 3 });
  });

  it("--strict stops at the first bad line, keeping the verdicts before it", async () => {
    const { result, records, reports } = await run(createReadStream(new URL("news.jsonl", FIXTURES)), { strict: true });
    expect(records.map((r) => r.id)).toEqual(["en-1", "zh-1", "t-1", "en-2", "t-3", "en-3"]);
    expect(reports).toHaveLength(1);
    expect(result.stoppedAtLine).toBe(8);
  });

  it("a window of 5 documents forgets en-1 before its copy arrives", async () => {
    const { records } = await run(createReadStream(new URL("news.jsonl", FIXTURES)), { windowDocs: 5 });
    expect(records.find((r) => r.id === "en-1-copy")?.status).toBe("original");
    expect(records.find((r) => r.id === "t-4")).toMatchObject({ status: "duplicate", duplicate_of: "t-3" });
  });

  it("a time window keeps only documents that recent", async () => {
    const lines = [
      { id: "a", text: "The quick brown fox jumps over the lazy dog near the river bank", at: "2024-01-01T00:00:00Z" },
      { id: "b", text: "The quick brown fox jumps over the lazy dog near the river bank", at: "2024-01-01T10:00:00Z" },
      { id: "c", text: "The quick brown fox jumps over the lazy dog near the river bank", at: "2024-01-03T00:00:00Z" },
    ].map((o) => JSON.stringify(o));
    const { records } = await run(Readable.from(lines.join("\n")), {
      fields: { textField: "text", idField: "id", timeField: "at", timeUnit: "ms" },
      windowMs: 86_400_000,
    });
    expect(verdicts(records)).toEqual([
      ["a", "original", null],
      ["b", "duplicate", "a"],
      ["c", "original", null],
    ]);
  });
});

// Issue 14: the CLI points a duplicate at its root original by the service's rule.
describe("the original (core chooseRoot rule, as in the service)", () => {
  // Preconditions checked below: A~C and B~C are near-duplicates, A and B are not.
  const C = "The harbour board approved a plan on Monday to rebuild the old stone pier before the summer season begins";
  const A = "The harbour board agreed a plan on Monday to rebuild the old stone pier before the summer season begins";
  const B = "The harbour board approved a plan on Monday to rebuild the old stone jetty ahead of the summer season";
  const jsonl = (docs: object[]) => Readable.from(docs.map((d) => JSON.stringify(d)).join("\n"));

  it("the pairs are as the tests need them", () => {
    expect(fingerprinter.compare(A, C).duplicate).toBe(true);
    expect(fingerprinter.compare(B, C).duplicate).toBe(true);
    expect(fingerprinter.compare(A, B).duplicate).toBe(false);
  });

  it("of two earlier originals, the earliest by time wins, not the first to arrive", async () => {
    const { records } = await run(jsonl([{ id: "a", time: 5000, text: A }, { id: "b", time: 1000, text: B }, { id: "c", time: 9000, text: C }]), {
      fields: { textField: "text", timeUnit: "ms" },
    });
    expect(verdicts(records)).toEqual([
      ["a", "original", null],
      ["b", "original", null],
      ["c", "duplicate", "b"],
    ]);
    // The same texts with the times swapped: now a is the earliest.
    const swapped = await run(jsonl([{ id: "a", time: 1000, text: A }, { id: "b", time: 5000, text: B }, { id: "c", time: 9000, text: C }]), {
      fields: { textField: "text", timeUnit: "ms" },
    });
    expect(swapped.records.at(-1)).toMatchObject({ id: "c", duplicate_of: "a" });
  });

  it("equal times: the smaller id wins", async () => {
    const { records } = await run(jsonl([{ id: "z", time: 1, text: A }, { id: "m", time: 1, text: B }, { id: "q", time: 1, text: C }]), {
      fields: { textField: "text", timeUnit: "ms" },
    });
    expect(records.at(-1)).toMatchObject({ id: "q", duplicate_of: "m" });
  });

  it("a duplicate of a duplicate points at the root original", async () => {
    // c duplicates a; b duplicates only c, so b's original is a, through c.
    const { records } = await run(jsonl([{ id: "a", text: A }, { id: "c", text: C }, { id: "b", text: B }]), { fields: { textField: "text", timeUnit: "ms" } });
    expect(verdicts(records)).toEqual([
      ["a", "original", null],
      ["c", "duplicate", "a"],
      ["b", "duplicate", "a"],
    ]);
    expect(records[2]!.similarity).toBeCloseTo(fingerprinter.compare(B, C).editSimilarity!, 3);
  });
});

describe("time windows and default time fields", () => {
  it("a time window reads `timestamp` by default; a line without any time is a bad line, not silently kept forever", async () => {
    const text = "The quick brown fox jumps over the lazy dog near the river bank";
    const lines = [{ id: "a", timestamp: "2024-01-01T00:00:00Z", text }, { id: "b", text }, { id: "c", timestamp: "2024-01-03T00:00:00Z", text }];
    const { records, reports } = await run(Readable.from(lines.map((o) => JSON.stringify(o)).join("\n")), {
      fields: { textField: "text", timeUnit: "ms" },
      windowMs: 86_400_000,
    });
    expect(verdicts(records)).toEqual([
      ["a", "original", null],
      ["c", "original", null],
    ]);
    expect(reports).toEqual(["line 2: no time: a time window needs one (fields time, timestamp, @timestamp, date, created_at, or --time-field)"]);
  });
});

describe("runDedup input handling", () => {
  it("empty input: no output, zero documents", async () => {
    const { result, records, reports } = await run(createReadStream(new URL("empty.jsonl", FIXTURES)));
    expect(records).toEqual([]);
    expect(reports).toEqual([]);
    expect(result.summary).toEqual({ documents: 0, duplicates: 0, duplicateRate: 0, largestClusters: [] });
  });

  it("auto-detects plain text, one document a line, ids = line numbers", async () => {
    const { result, records } = await run(createReadStream(new URL("titles.txt", FIXTURES)), { fields: { textField: "text", timeUnit: "ms" } });
    expect(result.format).toBe("text");
    expect(records).toHaveLength(6);
    expect(records[4]).toMatchObject({ id: "5", status: "duplicate", duplicate_of: "2" });
    expect(records.filter((r) => r.status === "duplicate").every((r) => r.id === "5" || r.id === "4")).toBe(true);
  });

  it("a text the core refuses (lone surrogate) is a bad line, not a crash", async () => {
    const input = Readable.from([`{"text":"fine text here"}\n{"text":"bad \\ud800 text"}\n{"text":"another fine text"}\n`]);
    const { records, reports } = await run(input, { fields: { textField: "text", timeUnit: "ms" } });
    expect(records.map((r) => r.id)).toEqual(["1", "3"]);
    expect(reports).toEqual([expect.stringMatching(/^line 2: /)]);
  });

  it("a byte-order mark and CRLF line ends are accepted", async () => {
    const input = Readable.from(['\ufeff{"id":"x","text":"hello world again"}\r\n{"id":"y","text":"hello world again"}\r\n']);
    const { records, reports } = await run(input);
    expect(reports).toEqual([]);
    expect(verdicts(records)).toEqual([
      ["x", "original", null],
      ["y", "duplicate", "x"],
    ]);
  });
});

describe("LSH band keys in the embedded dedup", () => {
  it("without them, the punctuation variant 9 bits away is missed at radius 3: the keys are what find it", async () => {
    const withKeys = fingerprinter;
    try {
      fingerprinter = await createFingerprinter({ lsh: false });
      const { records } = await run(createReadStream(new URL("news.jsonl", FIXTURES)));
      expect(records.find((r) => r.id === "t-2")).toMatchObject({ status: "original", duplicate_of: null });
    } finally {
      fingerprinter = withKeys;
    }
  });
});

describe("runDedup's lines", () => {
  it("ends a line at \\n only: a JSON line with \\r as white space is one document, a text line with a lone \\r is one (readline split both)", async () => {
    const jsonl = await run(Readable.from([Buffer.from('{"id":"a",\r"text":"first line of the corpus"}\r\n{"id":"b","text":"second"}\n')]));
    expect(jsonl.reports).toEqual([]);
    expect(jsonl.records.map((r) => r.id)).toEqual(["a", "b"]);
    const text = await run(Readable.from([Buffer.from("old mac text\rwith a carriage return\nnext\n")]), { format: "text" });
    expect(text.records.map((r) => r.id)).toEqual(["1", "2"]);
  });

  it("reports a line past the line limit in its turn and stops there with --strict", async () => {
    const big = `{"id":"big","text":"${"x".repeat(70 * 1024 * 1024)}"}\n`;
    const input = () => Readable.from([Buffer.from('{"id":"a","text":"before"}\n'), Buffer.from(big), Buffer.from('{"id":"c","text":"after"}\n')]);
    const lenient = await run(input());
    expect(lenient.records.map((r) => r.id)).toEqual(["a", "c"]);
    expect(lenient.reports).toEqual([expect.stringMatching(/^line 2: longer than 67108864 bytes \(73400343\); skipped$/)]);
    const strict = await run(input(), { strict: true });
    expect(strict.result.stoppedAtLine).toBe(2);
    expect(strict.records.map((r) => r.id)).toEqual(["a"]);
  });
});

describe("runDedup on bytes that are not UTF-8 (CLI audit)", () => {
  it("skips such a line and says why, where decoding made two different Latin-1 lines one text and a duplicate", async () => {
    const input = Readable.from([Buffer.concat([Buffer.from("El ni\xf1o comi\xf3 pan\n", "latin1"), Buffer.from("El ni\xe7o comi\xe9 pan\n", "latin1"), Buffer.from("El niño comió pan\n", "utf8")])]);
    const { records, reports } = await run(input, { format: "text" });
    expect(reports.filter((m) => m.includes("not valid UTF-8"))).toHaveLength(2);
    expect(records.map((r) => r.status)).toEqual(["original"]);
  });
});

describe("runDedup with an id given twice (CLI audit)", () => {
  it("never calls a document a duplicate of its own id", async () => {
    const text = "The quarterly report was sent to the board on Monday, with the revised budget attached.";
    const lines = [{ id: "a", text }, { id: "a", text }, { id: "b", text }].map((d) => JSON.stringify(d)).join("\n") + "\n";
    const { records } = await run(Readable.from([lines]));
    expect(records.map((r) => [r.id, r.status, r.duplicate_of])).toEqual([
      ["a", "original", null],
      ["a", "original", null],
      ["b", "duplicate", "a"],
    ]);
  });
});
