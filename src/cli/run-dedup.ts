/**
 * `neardup dedup` without the process: lines in, JSONL verdicts out, bad lines
 * reported with their line numbers. main.ts wires files, stdin/stdout and the
 * progress bar; tests call this directly.
 */
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { isNeardupError } from "../core/errors.js";
import type { Fingerprinter } from "../core/fingerprinter.js";
import { BatchDeduper } from "./dedup.js";
import type { DedupOptions, DedupSummary } from "./dedup.js";
import { detectFormat, parseLine } from "./input.js";
import type { FieldOptions, InputFormat } from "./input.js";

export interface RunDedupOptions extends DedupOptions {
  fields: FieldOptions;
  /** Input format; `auto` (default) looks at the first non-blank line. */
  format?: InputFormat | "auto";
  /** Stop at the first bad line instead of skipping it. */
  strict?: boolean;
}

export interface RunDedupIO {
  input: Readable;
  output: Writable;
  /** One message a call (a bad line), without a trailing newline. */
  report: (message: string) => void;
  /** Called after every document with the documents done and the input bytes read so far. */
  progress?: (documents: number, bytes: number) => void;
}

export interface RunDedupResult {
  summary: DedupSummary;
  format: InputFormat | undefined;
  badLines: number;
  blankLines: number;
  /** Line number of the bad line that stopped a `strict` run. */
  stoppedAtLine?: number;
}

export async function runDedup(fingerprinter: Fingerprinter, options: RunDedupOptions, io: RunDedupIO): Promise<RunDedupResult> {
  const deduper = new BatchDeduper(fingerprinter, options);
  const lines = createInterface({ input: io.input, crlfDelay: Infinity });
  let format: InputFormat | undefined = options.format === "auto" || options.format === undefined ? undefined : options.format;
  let lineNumber = 0;
  let bytes = 0;
  let badLines = 0;
  let blankLines = 0;
  let stoppedAtLine: number | undefined;
  const write = async (s: string): Promise<void> => {
    if (!io.output.write(s)) await once(io.output, "drain");
  };

  for await (let line of lines) {
    lineNumber++;
    bytes += Buffer.byteLength(line, "utf8") + 1;
    if (lineNumber === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (format === undefined) {
      if (line.trim() === "") {
        blankLines++;
        continue;
      }
      format = detectFormat(line);
    }
    const parsed = parseLine(line, lineNumber, format, options.fields);
    if (parsed.kind === "blank") {
      blankLines++;
      continue;
    }
    let message: string;
    if (parsed.kind === "doc") {
      try {
        await write(`${JSON.stringify(deduper.check(parsed.doc))}\n`);
        io.progress?.(deduper.summary(0).documents, bytes);
        continue;
      } catch (err) {
        if (!isNeardupError(err)) throw err;
        message = err.message;
      }
    } else {
      message = parsed.message;
    }
    badLines++;
    io.report(`line ${lineNumber}: ${message}`);
    if (options.strict) {
      stoppedAtLine = lineNumber;
      break;
    }
  }
  lines.close();
  const result: RunDedupResult = { summary: deduper.summary(), format, badLines, blankLines };
  if (stoppedAtLine !== undefined) result.stoppedAtLine = stoppedAtLine;
  return result;
}
