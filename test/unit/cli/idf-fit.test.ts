// `neardup idf fit` (issue 14): streaming document frequencies into a versioned IDF file, and loading it back.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runIdfFit } from "../../../src/cli/idf-fit.js";
import { createFingerprinter } from "../../../src/core/fingerprinter.js";
import type { Fingerprinter } from "../../../src/core/fingerprinter.js";
import { CorpusIdf } from "../../../src/core/idf.js";
import { loadIdfFile, writeIdfFile } from "../../../src/resources/idf-file.js";

const FIXTURES = new URL("../../fixtures/cli/", import.meta.url);
const dir = mkdtempSync(join(tmpdir(), "neardup-idf-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fingerprinter: Fingerprinter;
beforeAll(async () => {
  fingerprinter = await createFingerprinter();
}, 120_000);

describe("runIdfFit", () => {
  it("counts each JSONL document once per term, reports bad lines, and equals CorpusIdf.fit on the same texts", async () => {
    const reports: string[] = [];
    let lastProgress = 0;
    const result = await runIdfFit(fingerprinter, { fields: { textField: "text", timeUnit: "ms" } }, {
      input: createReadStream(new URL("news.jsonl", FIXTURES)),
      report: (m) => reports.push(m),
      progress: (docs) => (lastProgress = docs),
    });
    expect(result.table.n).toBe(11);
    expect(lastProgress).toBe(11);
    expect(result.badLines).toBe(2);
    expect(reports).toEqual([expect.stringMatching(/^line 8: not valid JSON/), 'line 10: field "text" must be a string, got nothing']);
    // en-1, en-2 and en-1-copy hold "bicycle"; "council" the same three.
    expect(result.table.documentFrequency("bicycle")).toBe(3);
    expect(result.table.idf("bicycle")).toBeGreaterThan(result.table.idf("the"));
  });

  it("plain text, one document a line; --min-df drops rare terms", async () => {
    const input = Readable.from(["red apple pie\nred cherry pie\n\ngreen apple\n"]);
    const result = await runIdfFit(fingerprinter, { fields: { textField: "text", timeUnit: "ms" }, minDf: 2 }, { input, report: () => {} });
    expect(result.table.n).toBe(3);
    expect(result.termsSeen).toBe(5);
    expect(result.table.toJSON().df).toEqual({ apple: 2, pie: 2, red: 2 });
  });
});

describe("IDF files", () => {
  it("round-trip with the same identity", async () => {
    const table = CorpusIdf.fit([["a", "b"], ["b"]]);
    const path = join(dir, "idf.json");
    await writeIdfFile(path, table);
    const back = await loadIdfFile(path);
    expect(back.identity).toBe(table.identity);
  });

  it("a missing or foreign file is an error naming the path and the problem", async () => {
    await expect(loadIdfFile(join(dir, "none.json"))).rejects.toMatchObject({ code: "ENVIRONMENT", message: expect.stringContaining("none.json") });
    const foreign = join(dir, "foreign.json");
    writeFileSync(foreign, JSON.stringify({ format: "neardup-idf", version: 2, n: 1, df: {} }));
    await expect(loadIdfFile(foreign)).rejects.toMatchObject({ code: "CORRUPT_FILE", message: `IDF file ${foreign}: IDF table version must be 1, got 2` });
  });
});
