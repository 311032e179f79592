/**
 * Reading and writing corpus IDF files (`neardup idf fit`, `--idf`,
 * `NEARDUP_IDF_FILE`): the JSON of `CorpusIdf.toJSON` (`format:
 * "neardup-idf"`, `version: 1`), checked on load. The one place that touches
 * the file, so `src/core` stays free of I/O.
 */
import { readFile, writeFile } from "node:fs/promises";
import { NeardupError } from "../core/errors.js";
import { CorpusIdf } from "../core/idf.js";

/** Loads an IDF file. @throws NeardupError ENVIRONMENT (unreadable) or CORRUPT_FILE (not an IDF table), naming the path. */
export async function loadIdfFile(path: string): Promise<CorpusIdf> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new NeardupError("ENVIRONMENT", `cannot read IDF file ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    return CorpusIdf.fromJSON(text);
  } catch (cause) {
    throw new NeardupError("CORRUPT_FILE", `IDF file ${path}: ${(cause as Error).message}`, { cause });
  }
}

/** Writes a table as its canonical JSON (terms sorted), so equal tables make equal files. */
export async function writeIdfFile(path: string, table: CorpusIdf): Promise<void> {
  await writeFile(path, `${JSON.stringify(table.toJSON())}\n`, "utf8");
}
