/**
 * `neardup idf fit` without the process: lines in (JSONL or text, as for
 * `dedup`), document frequencies counted one document at a time, the table
 * returned. Terms are the fingerprinter's tokens (normalized; stop words
 * counted too, they are dropped later anyway). Bad lines are reported and
 * skipped, like `dedup`.
 */
import type { Readable } from "node:stream";
import { CorpusIdfBuilder } from "../core/idf.js";
import type { CorpusIdf } from "../core/idf.js";
import { isNeardupError } from "../core/errors.js";
import type { Fingerprinter } from "../core/fingerprinter.js";
import { detectFormat, parseLine } from "./input.js";
import { readLines, skippedBecause } from "./lines.js";
import type { FieldOptions, InputFormat } from "./input.js";

export interface IdfFitOptions {
  fields: FieldOptions;
  format?: InputFormat | "auto";
  /** Leave out terms found in fewer documents (smaller file; they then count as unseen). Default 1. */
  minDf?: number;
}

export interface IdfFitIO {
  input: Readable;
  report: (message: string) => void;
  progress?: (documents: number, bytes: number) => void;
}

export interface IdfFitResult {
  table: CorpusIdf;
  /** Distinct terms counted, before `minDf`. */
  termsSeen: number;
  badLines: number;
}

export async function runIdfFit(fingerprinter: Fingerprinter, options: IdfFitOptions, io: IdfFitIO): Promise<IdfFitResult> {
  const builder = new CorpusIdfBuilder();
  let format: InputFormat | undefined = options.format === "auto" || options.format === undefined ? undefined : options.format;
  let lineNumber = 0;
  let bytes = 0;
  let badLines = 0;
  for await (const read of readLines(io.input)) {
    lineNumber++;
    bytes += read.bytes;
    if (read.text === undefined) {
      badLines++;
      io.report(`line ${lineNumber}: ${skippedBecause(read)}`);
      continue;
    }
    const line = read.text;
    if (line.trim() === "") continue;
    format ??= detectFormat(line);
    const parsed = parseLine(line, lineNumber, format, options.fields);
    if (parsed.kind === "blank") continue;
    if (parsed.kind === "bad") {
      badLines++;
      io.report(`line ${lineNumber}: ${parsed.message}`);
      continue;
    }
    try {
      builder.add(fingerprinter.tokenize(parsed.doc.text));
    } catch (err) {
      if (!isNeardupError(err)) throw err;
      badLines++;
      io.report(`line ${lineNumber}: ${err.message}`);
      continue;
    }
    io.progress?.(builder.documents, bytes);
  }
  return { table: builder.build(options.minDf ?? 1), termsSeen: builder.terms, badLines };
}
