/** `neardup idf fit`: flags and the wiring of runIdfFit to files, the progress bar and the output file. */
import { Option } from "commander";
import type { Command } from "commander";
import { analysisVersion, createFingerprinter } from "../core/fingerprinter.js";
import { writeIdfFile } from "../resources/idf-file.js";
import { openInput, parseNonNegativeInt } from "./options.js";
import type { CliEnv } from "./program.js";
import { createProgress } from "./progress.js";
import { runIdfFit } from "./idf-fit.js";

interface IdfFitFlags {
  out: string;
  format: "auto" | "jsonl" | "text";
  textField: string;
  minDf: number;
  progress: boolean;
}

const EXAMPLES = `
Examples:
  $ neardup idf fit articles.jsonl --out idf.json
  $ neardup idf fit - --format text --min-df 2 < titles.txt
  $ NEARDUP_IDF_FILE=idf.json npm start          # the service loads it
  $ neardup dedup new.jsonl --idf idf.json        # the CLI loads it

The file holds the number of documents and, per term, how many documents hold it
({"format":"neardup-idf","version":1,"n":..., "df":{...}}). Fingerprints made with it
carry its identity in their version (nd4+idf.<8 hex>), so they are compared only with
fingerprints made with the same table.`;

export function addIdfCommand(program: Command, env: CliEnv): void {
  const idf = program.command("idf").description("Corpus IDF tables: weights for terms learnt from your own documents.");
  idf
    .command("fit")
    .description("Count document frequencies in a JSONL or text file and write an IDF table.")
    .argument("[file]", 'input file, or "-" for stdin', "-")
    .option("-o, --out <file>", "where to write the table", "idf.json")
    .addOption(new Option("--format <format>", "input format").choices(["auto", "jsonl", "text"]).default("auto"))
    .option("--text-field <name>", "JSONL field with the text (dots reach into objects)", "text")
    .option("--min-df <n>", "leave out terms in fewer documents (smaller file; they then weigh as unseen)", parseNonNegativeInt("--min-df"), 1)
    .option("--no-progress", "no progress bar (it only shows on a terminal anyway)")
    .addHelpText("after", EXAMPLES)
    .action(async (file: string, flags: IdfFitFlags) => {
      const started = performance.now();
      const tty = flags.progress && env.stderr.isTTY === true;
      const fingerprinter = await (env.fingerprinter ?? createFingerprinter)({});
      const opened = file === "-" ? undefined : openInput(file);
      const input = opened?.input ?? env.stdin;
      const progress = tty ? createProgress(env.stderr, opened?.size) : undefined;
      const result = await runIdfFit(
        fingerprinter,
        { fields: { textField: flags.textField, timeUnit: "ms" }, format: flags.format, minDf: flags.minDf },
        {
          input,
          report: (m) => {
            progress?.clear();
            env.stderr.write(`neardup: ${m}\n`);
          },
          progress: progress?.update,
        },
      );
      progress?.stop();
      await writeIdfFile(flags.out, result.table);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      env.stderr.write(
        `documents: ${result.table.n}, terms: ${result.table.size} kept of ${result.termsSeen}, bad lines: ${result.badLines}\n` +
          `wrote ${flags.out} (fingerprint version ${analysisVersion(result.table)}) in ${seconds} s\n`,
      );
      process.exitCode = 0;
    });
}
