/**
 * `neardup dedup` without the process: lines in, JSONL verdicts out, bad lines
 * reported with their line numbers. main.ts wires files, stdin/stdout and the
 * progress bar; tests call this directly.
 */
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import { NeardupError, isNeardupError } from "../core/errors.js";
import type { Fingerprinter } from "../core/fingerprinter.js";
import { BatchDeduper } from "./dedup.js";
import type { DedupOptions, DedupSummary } from "./dedup.js";
import { detectFormat, parseLine } from "./input.js";
import { readLines, skippedBecause } from "./lines.js";
import type { FieldOptions, InputDoc, InputFormat } from "./input.js";
import { createInThreadAnalyzer } from "../workers/analyzer.js";
import type { AnalyzeOutcome, Analyzer } from "../workers/analyzer.js";

export interface RunDedupOptions extends DedupOptions {
  fields: FieldOptions;
  /** Input format; `auto` (default) looks at the first non-blank line. */
  format?: InputFormat | "auto";
  /** Stop at the first bad line instead of skipping it. */
  strict?: boolean;
  /** Where texts are analyzed (`--workers`); default: this thread. The verdicts are the same either way. */
  analyzer?: Analyzer;
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

/** One input line on its way to a verdict: a document or the message of a bad line. */
interface Entry {
  lineNumber: number;
  /** Input bytes read up to the end of this line. */
  bytes: number;
  doc?: InputDoc;
  message?: string;
}

export async function runDedup(fingerprinter: Fingerprinter, options: RunDedupOptions, io: RunDedupIO): Promise<RunDedupResult> {
  const deduper = new BatchDeduper(fingerprinter, options);
  const analyzer = options.analyzer ?? createInThreadAnalyzer(fingerprinter);
  // Lines go to the analyzer in batches, a few batches ahead of the decisions,
  // which take them strictly in input order: the verdicts are those of a
  // sequential run, whatever the number of threads. In this thread: one line at a time.
  const batchSize = analyzer.threads > 1 ? 64 : 1;
  const depth = analyzer.threads > 1 ? 2 * analyzer.threads : 0;
  let format: InputFormat | undefined = options.format === "auto" || options.format === undefined ? undefined : options.format;
  let lineNumber = 0;
  let bytes = 0;
  let badLines = 0;
  let blankLines = 0;
  let stoppedAtLine: number | undefined;
  const write = async (s: string): Promise<void> => {
    if (!io.output.write(s)) await once(io.output, "drain");
  };

  let batch: Entry[] = [];
  const inFlight: { entries: Entry[]; outcomes: Promise<AnalyzeOutcome[]> }[] = [];
  const submit = (): void => {
    if (batch.length === 0) return;
    const entries = batch;
    batch = [];
    const docs = entries.flatMap((e) => (e.doc === undefined ? [] : [{ text: e.doc.text, field: "text" }]));
    const outcomes = docs.length === 0 ? Promise.resolve([]) : analyzer.analyzeMany(docs);
    outcomes.catch(() => undefined); // awaited in order below; a batch left behind by --strict must not be an unhandled rejection
    inFlight.push({ entries, outcomes });
  };
  /** Decides the oldest batch in input order; false when --strict stops the run at a bad line. */
  const decideNext = async (): Promise<boolean> => {
    const { entries, outcomes } = inFlight.shift()!;
    const analyses = await outcomes;
    let k = 0;
    for (const e of entries) {
      let message = e.message;
      if (e.doc !== undefined) {
        const a = analyses[k++]!;
        if (a instanceof NeardupError) {
          message = a.message;
        } else {
          try {
            await write(`${JSON.stringify(deduper.checkAnalyzed(e.doc, a))}\n`);
            io.progress?.(deduper.summary(0).documents, e.bytes);
            continue;
          } catch (err) {
            if (!isNeardupError(err)) throw err;
            message = err.message;
          }
        }
      }
      badLines++;
      io.report(`line ${e.lineNumber}: ${message}`);
      if (options.strict) {
        stoppedAtLine = e.lineNumber;
        return false;
      }
    }
    return true;
  };

  let going = true;
  for await (const read of readLines(io.input)) {
    lineNumber++;
    bytes += read.bytes;
    if (read.text === undefined) {
      // A bad line, reported in its turn (and where --strict stops).
      batch.push({ lineNumber, bytes, message: skippedBecause(read) });
    } else {
      const line = read.text;
      if (line.trim() === "") {
        blankLines++;
        continue;
      }
      format ??= detectFormat(line);
      const parsed = parseLine(line, lineNumber, format, options.fields);
      if (parsed.kind === "blank") {
        blankLines++;
        continue;
      }
      batch.push(parsed.kind === "doc" ? { lineNumber, bytes, doc: parsed.doc } : { lineNumber, bytes, message: parsed.message });
    }
    if (batch.length < batchSize) continue;
    submit();
    while (going && inFlight.length > depth) going = await decideNext();
    if (!going) break;
  }
  if (going) submit();
  while (going && inFlight.length > 0) going = await decideNext();
  const result: RunDedupResult = { summary: deduper.summary(), format, badLines, blankLines };
  if (stoppedAtLine !== undefined) result.stoppedAtLine = stoppedAtLine;
  return result;
}
