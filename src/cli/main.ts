#!/usr/bin/env node
/** `neardup` command-line entry point. */
import { createProgram } from "./program.js";

process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  // Output piped into `head` and closed early: stop quietly.
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  // Anything else (a full disk behind a redirect): one line, not a stack.
  process.stderr.write(`neardup: cannot write the output: ${err.message}\n`);
  process.exit(1);
});

createProgram({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr })
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    process.stderr.write(`neardup: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
