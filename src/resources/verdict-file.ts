/**
 * A verdict options file (`NEARDUP_VERDICT_FILE`): the JSON of `VerdictOptions`
 * (`buckets`, `middleVeto`, `recordVeto`, `sheetVeto`; docs/fingerprint-spec.md §8), checked on load. JSON
 * has no Infinity, so the last bucket's `maxLength` is written `null`. The one
 * place that touches the file, so `src/core` stays free of I/O.
 */
import { readFile } from "node:fs/promises";
import { NeardupError } from "../core/errors.js";
import { validateVerdictOptions, type VerdictOptions } from "../core/verdict.js";

const SETTING = "NEARDUP_VERDICT_FILE";

/**
 * Loads a verdict options file. `setting` names it in errors (the CLI's `--verdict-file`).
 * @throws NeardupError INVALID_CONFIG naming the setting (unreadable, not JSON) or the bad option's path under it.
 */
export async function loadVerdictFile(path: string, setting = SETTING): Promise<VerdictOptions> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new NeardupError("INVALID_CONFIG", `${setting}=${JSON.stringify(path)} cannot be read: ${(cause as Error).message}`, { field: setting, cause });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new NeardupError("INVALID_CONFIG", `${setting}=${JSON.stringify(path)} is not JSON: ${(cause as Error).message}`, { field: setting, cause });
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new NeardupError("INVALID_CONFIG", `${setting}=${JSON.stringify(path)} must hold a JSON object ({"buckets": [...], "middleVeto": ..., "recordVeto": ..., "sheetVeto": ...})`, { field: setting });
  }
  const options = raw as VerdictOptions;
  if (Array.isArray(options.buckets)) {
    const last = options.buckets[options.buckets.length - 1] as { maxLength: unknown } | undefined;
    if (last && last.maxLength === null) last.maxLength = Infinity;
  }
  return validateVerdictOptions(options, setting);
}
