/** Parsing and validating `neardup dedup` flags into typed options. */
import { closeSync, createReadStream, fstatSync, openSync } from "node:fs";
import type { Readable } from "node:stream";
import { InvalidArgumentError } from "commander";
import { DEFAULT_VERDICT_OPTIONS } from "../core/verdict.js";
import type { VerdictOptions } from "../core/verdict.js";
import { loadVerdictFile } from "../resources/verdict-file.js";

export function parseNonNegativeInt(name: string, max = Number.MAX_SAFE_INTEGER, min = 0) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n > max || n < min) {
      throw new InvalidArgumentError(`${name} must be an integer in ${min}..${max}, got "${value}"`);
    }
    return n;
  };
}

export function parseFraction(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === "" || !(n >= 0 && n <= 1)) throw new InvalidArgumentError(`${name} must be a number in 0..1, got "${value}"`);
    return n;
  };
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `45s`, `30m`, `12h`, `2d` -> milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  if (m === null) throw new InvalidArgumentError(`expected a duration such as 45s, 30m, 12h or 2d, got "${value}"`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export interface ThresholdOverrides {
  maxDistance?: number | undefined;
  minCosine?: number | undefined;
  minEditSimilarity?: number | undefined;
  minJaccard?: number | undefined;
}

/** The verdict buckets (`base`: a verdict file's, else the defaults) with each given threshold set in every bucket (turning that rule on where it was off). */
export function verdictWith(overrides: ThresholdOverrides, base: VerdictOptions = DEFAULT_VERDICT_OPTIONS): VerdictOptions {
  return {
    ...base,
    buckets: base.buckets.map((b) => ({
      ...b,
      maxDistance: overrides.maxDistance ?? b.maxDistance,
      minCosine: overrides.minCosine ?? b.minCosine,
      minEditSimilarity: overrides.minEditSimilarity ?? b.minEditSimilarity,
      minJaccard: overrides.minJaccard ?? b.minJaccard ?? null,
    })),
  };
}

/** The verdict options of the CLI's flags: the `--verdict-file` (else the built-in rules) with each threshold flag set over it. */
export async function verdictFromFlags(verdictFile: string | undefined, overrides: ThresholdOverrides): Promise<VerdictOptions> {
  return verdictWith(overrides, verdictFile ? await loadVerdictFile(verdictFile, "--verdict-file") : undefined);
}

/**
 * An input file opened for reading, or a clear error: opened here, not by the stream, whose failure to open
 * (a missing file, no permission) came as an unhandled 'error' event and a stack trace after the message.
 */
export function openInput(file: string): { input: Readable; size: number } {
  const fd = openSync(file, "r");
  const stat = fstatSync(fd);
  if (stat.isDirectory()) {
    closeSync(fd);
    throw new InvalidArgumentError(`${file} is a directory, not a file`);
  }
  return { input: createReadStream(file, { fd }), size: stat.size };
}

