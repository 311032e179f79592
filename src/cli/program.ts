/** The commander program: flags, help text, and the wiring of `dedup` to files, stdin/stdout and the progress bar. */
import { createWriteStream, statSync } from "node:fs";
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import { finished } from "node:stream/promises";
import { Command, Option } from "commander";
import { createFingerprinter, FINGERPRINT_VERSION } from "../core/fingerprinter.js";
import type { Fingerprinter } from "../core/fingerprinter.js";
import { addDashboardsCommand } from "./dashboards.js";
import { addBackfillCommand } from "./backfill.js";
import { openInput, parseDuration, parseFraction, parseNonNegativeInt, verdictFromFlags } from "./options.js";
import { createProgress } from "./progress.js";
import { runDedup } from "./run-dedup.js";
import type { RunDedupOptions } from "./run-dedup.js";
import { formatSummary } from "./summary.js";
import { loadIdfFile } from "../resources/idf-file.js";
import { addIdfCommand } from "./idf-command.js";
import { createAnalyzer, defaultWorkers } from "../workers/index.js";
import { PACKAGE_VERSION } from "../version.js";

/** What the program touches outside itself; tests pass their own. */
export interface CliEnv {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  /** Builds the fingerprinter for the chosen thresholds. */
  fingerprinter?: (options: Parameters<typeof createFingerprinter>[0]) => Promise<Fingerprinter>;
}

interface DedupFlags {
  format: "auto" | "jsonl" | "text";
  textField: string;
  /** Undefined: `id` when present; false: `--no-id-field`. */
  idField?: string | false;
  /** Undefined: the first common time field present; false: `--no-time-field`. */
  timeField?: string | false;
  idf?: string;
  verdictFile?: string;
  minJaccard?: number;
  timeUnit: "ms" | "s";
  out?: string;
  radius?: number;
  maxDistance?: number;
  minCosine?: number;
  minEditSimilarity?: number;
  window?: number;
  windowDocs?: number;
  maxCandidates: number;
  strict?: boolean;
  progress: boolean;
  workers: number;
}

const EXAMPLES = `
Examples:
  $ neardup dedup articles.jsonl --out verdicts.jsonl
  $ neardup dedup - --format text < titles.txt | grep '"duplicate"'
  $ neardup dedup posts.jsonl --text-field body --id-field _id --time-field created_at --window 2d
  $ neardup idf fit corpus.jsonl --out idf.json && neardup dedup new.jsonl --idf idf.json

Each output line: {"id","status":"original"|"duplicate","duplicate_of","distance","similarity","reason"}.
JSONL ids come from "id" and times from the first of time, timestamp, @timestamp, date,
created_at that a line has, unless --id-field / --time-field (or --no-id-field / --no-time-field) say otherwise.
A document is compared with every earlier one (or those in --window); the first one wins, and a
duplicate points at its root original: of the earlier near-duplicates, the earliest by time, then id.
Bad lines are reported on stderr with their line number and skipped (--strict: stop, exit 1).
Exit status: 0 done, 1 stopped by --strict or an error.`;

export function createProgram(env: CliEnv): Command {
  const program = new Command("neardup")
    .description("Near-duplicate text detection: simhash segments, TF-IDF cosine and edit distance.")
    .version(`${PACKAGE_VERSION} (fingerprint ${FINGERPRINT_VERSION})`, "-V, --version", "print the version of neardup and of its fingerprint")
    .configureOutput({
      writeOut: (s) => env.stdout.write(s),
      writeErr: (s) => env.stderr.write(s),
    });

  program
    .command("dedup")
    .description("Mark each document of a JSONL or text file as original or near-duplicate of an earlier one.")
    .argument("[file]", 'input file, or "-" for stdin', "-")
    .addOption(new Option("--format <format>", "input format").choices(["auto", "jsonl", "text"]).default("auto"))
    .option("--text-field <name>", "JSONL field with the text (dots reach into objects)", "text")
    .option("--id-field <name>", 'JSONL field with the document id (default: "id" when a line has it, else the line number)')
    .option("--no-id-field", "ids are line numbers, even when lines have an id field")
    .option("--time-field <name>", "JSONL field with the time, ISO 8601 or epoch number (default: the first of time, timestamp, @timestamp, date, created_at a line has)")
    .option("--no-time-field", "no document times: documents are in line order")
    .option("--idf <file>", "IDF table from `neardup idf fit` (default: the bundled one); fingerprints then carry its identity")
    .addOption(new Option("--verdict-file <file>", "verdict options as JSON, as the service takes them (its NEARDUP_VERDICT_FILE; default: the built-in rules); the threshold flags apply on top").env("NEARDUP_VERDICT_FILE"))
    .addOption(new Option("--time-unit <unit>", "unit of numeric times").choices(["ms", "s"]).default("ms"))
    .option("-o, --out <file>", "write verdicts here instead of stdout")
    .option("--radius <bits>", "Hamming radius for candidates (default: by text length, from the verdict buckets; >= 12 scans everything)", parseNonNegativeInt("--radius", 64))
    .option("--max-distance <bits>", "duplicate when simhash distance <= this (all length buckets)", parseNonNegativeInt("--max-distance", 64))
    .option("--min-cosine <x>", "duplicate when TF-IDF cosine >= this (all length buckets)", parseFraction("--min-cosine"))
    .option("--min-edit-similarity <x>", "duplicate when edit similarity >= this (all length buckets)", parseFraction("--min-edit-similarity"))
    .option("--min-jaccard <x>", "duplicate when character 3-gram Jaccard >= this (all length buckets)", parseFraction("--min-jaccard"))
    .option("--window <duration>", "compare only with documents this much older, e.g. 2d, 12h (needs document times: not with --no-time-field)", parseDuration)
    .option("--window-docs <n>", "compare only with the last n documents", parseNonNegativeInt("--window-docs"))
    .option("--max-candidates <n>", "most candidates verified per document, nearest first", parseNonNegativeInt("--max-candidates"), 100)
    .option("--strict", "stop at the first bad line (exit 1) instead of skipping it")
    .option("--no-progress", "no progress bar (it only shows on a terminal anyway)")
    .option("--workers <n>", "threads that analyze texts (default: one per core; 0 or 1: this thread; verdicts are the same)", parseNonNegativeInt("--workers", 256), defaultWorkers())
    .addHelpText("after", EXAMPLES)
    .action(async (file: string, flags: DedupFlags, cmd: Command) => {
      if (flags.window !== undefined && flags.timeField === false) cmd.error("error: --window needs document times, not --no-time-field (use --window-docs to count documents)");
      if (flags.window !== undefined && flags.windowDocs !== undefined) cmd.error("error: give --window or --window-docs, not both");
      process.exitCode = await dedupCommand(file, flags, env);
    });
  addDashboardsCommand(program, env);
  addIdfCommand(program, env);
  addBackfillCommand(program, env);
  return program;
}

/**
 * The `--out` file, open, or an error naming it: never the input file (opening it for writing empties it
 * before a line is read), and a path that cannot be written is one line, not a stack. A write error later
 * (a full disk) ends the run when the file is closed, with the same kind of message.
 */
async function openOutput(path: string, input: string | undefined): Promise<Writable> {
  const same = (a: string, b: string) => {
    try {
      const [x, y] = [statSync(a), statSync(b)];
      return x.dev === y.dev && x.ino === y.ino;
    } catch {
      return false;
    }
  };
  if (input !== undefined && same(input, path)) throw new Error(`--out ${path} is the input file: writing it would empty it before it is read; write the verdicts elsewhere`);
  const stream = createWriteStream(path);
  try {
    await once(stream, "open");
  } catch (err) {
    throw new Error(`cannot write --out ${path}: ${(err as Error).message}`);
  }
  // A later write error is reported by `finished` when the file is closed (dedupCommand); this listener only
  // keeps it from being an unhandled 'error' event that ends the process with a stack.
  stream.on("error", () => undefined);
  return stream;
}

async function dedupCommand(file: string, flags: DedupFlags, env: CliEnv): Promise<number> {
  const started = performance.now();
  const tty = flags.progress && env.stderr.isTTY === true;
  if (tty) env.stderr.write("neardup: loading dictionaries…\n");
  const make = env.fingerprinter ?? createFingerprinter;
  const idf = flags.idf === undefined ? undefined : await loadIdfFile(flags.idf);
  const fingerprinterOptions = {
    verdict: await verdictFromFlags(flags.verdictFile, { maxDistance: flags.maxDistance, minCosine: flags.minCosine, minEditSimilarity: flags.minEditSimilarity, minJaccard: flags.minJaccard }),
    ...(idf === undefined ? {} : { idf }),
  };
  const fingerprinter = await make(fingerprinterOptions);
  // Workers build their own fingerprinter from the same options; a corpus IDF table is analysed in this thread.
  const analyzer = await createAnalyzer(fingerprinter, idf === undefined ? flags.workers : 1, fingerprinterOptions);

  const opened = file === "-" ? undefined : openInput(file);
  const input = opened?.input ?? env.stdin;
  const totalBytes = opened?.size;
  const output = flags.out === undefined ? env.stdout : await openOutput(flags.out, file === "-" ? undefined : file);
  const progress = tty ? createProgress(env.stderr, totalBytes) : undefined;
  const options: RunDedupOptions = {
    fields: { textField: flags.textField, idField: flags.idField, timeField: flags.timeField, timeUnit: flags.timeUnit },
    format: flags.format,
    strict: flags.strict === true,
    radius: flags.radius,
    windowMs: flags.window,
    windowDocs: flags.windowDocs,
    maxCandidates: flags.maxCandidates,
  };
  const result = await runDedup(fingerprinter, { ...options, analyzer }, {
    input,
    output,
    report: (m) => {
      progress?.clear();
      env.stderr.write(`neardup: ${m}\n`);
    },
    progress: progress?.update,
  }).finally(() => analyzer.close());
  progress?.stop();
  if (output !== env.stdout) {
    output.end();
    await finished(output).catch((err: Error) => {
      throw new Error(`cannot write --out ${flags.out!}: ${err.message}`);
    });
  }
  env.stderr.write(`${formatSummary(result, (performance.now() - started) / 1000)}\n`);
  return result.stoppedAtLine === undefined ? 0 : 1;
}
