/**
 * Time stamps and process ids of log records (spec §2, step 7 of
 * normalization, version `nd4`).
 *
 * A log line logged again for the same event differs from the first only in
 * its time stamp and, for a syslog record, its process id: `2024-02-08T19:58:54.889Z
 * sshd[47440]: Failed password for invalid user admin from 139.205.198.34`
 * and the same line at `20:00:42.562Z` from `sshd[1743]`. Twenty changed digits
 * in a line of 100 characters put the pair under every short-text rule (an
 * outside audit found 8% of such pairs with stamps days apart, docs/quality.md
 * "nd4"); the stamp is the record's time, which the document carries in its own
 * time field. Runs on normalized text (after NFKC, lower case, the Chinese fold
 * and the decorations step). Each stamp becomes one space, which the later
 * steps collapse:
 *
 * 1. A time of day with seconds, `h:mm:ss` or `hh:mm:ss`, with an optional
 *    fraction (`.123`, `,123`) and zone (`z` right after it, or `utc`, `gmt`,
 *    `+08:00`, `-0700`), not inside a longer run of digits and colons
 *    (`1:23:45:67` stays) and not after a Latin letter, digit, `_` or `.`; with the
 *    date before it when there is one:
 *    - `2024-06-26`, `2024/06/26`, `2024.06.26` (year first), then `t`, a
 *      space or `:`;
 *    - `26/jun/2024` then `:` (the common log format of web servers);
 *    - `jun 26`, `jun 26, 2024`, `wed jun 26` (syslog, `date`), then spaces;
 *    - `2024年6月26日` then optional spaces;
 *    and with a year after it or after its zone (`wed jun 26 18:23:55 utc 2024`).
 *    A date alone, and a time without seconds (`14:30`), stay: they are what a
 *    notice or an article says, not when a record was written.
 * 2. A syslog process id: `[digits]` right after a program name (a Latin
 *    letter, then letters, digits, `_.-/`) and right before `:`
 *    (`sshd[47440]:` -> `sshd:`).
 *
 * Safety: when fewer than 5 letters or digits (`\p{L}\p{N}`) would be left, the
 * text is returned as it was, as the decorations step does.
 *
 * A text without two digits around a `:` (`mayHaveStamps`) is returned as it is
 * after that quick check, which is all other text pays.
 */
import { unlessTooLittleLeft } from "./removal-guard.js";

const MONTH = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\\.?";
const WEEKDAY = "(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\\.?,?";
const DATE = [
  "\\d{4}[-/.]\\d{1,2}[-/.]\\d{1,2}(?:t|[ :]+)",
  "\\d{1,2}/[a-z]{3}/\\d{4}:",
  `(?:${WEEKDAY} +)?${MONTH} +\\d{1,2}(?:,? +\\d{4})? +`,
  "\\d{4}年\\d{1,2}月\\d{1,2}日 *",
].join("|");
const TIME = "\\d{1,2}:\\d{2}:\\d{2}(?:[.,]\\d{1,9})?";
const ZONE = "(?:z|\\s?(?:utc|gmt)(?![a-z])|\\s?[+-]\\d{2}:?\\d{2})?";
/** A year after a time of day (` 2024`), not a longer number. */
const YEAR = "(?: (?:19|20)\\d{2}(?![\\d:]))?";
/** A stamp: an optional date, the time with seconds, an optional zone and a year before or after it (the `date` command's order). */
const STAMP = new RegExp(`(?<![a-z0-9_:.])(?:${DATE})?${TIME}${YEAR}${ZONE}${YEAR}(?![\\d:])`, "gu");
/** A syslog tag's process id (`sshd[47440]:`). */
const PID = /(?<![a-z0-9_./-])([a-z][a-z0-9_./-]{0,47})\[\d{1,10}\](?=:)/gu;
/** Two digits around a colon: where step 1 may find a stamp. */
const DIGIT_COLON_DIGIT = /\d:\d/u;

/** Whether `text` may hold a stamp or a process id (false means `stripStamps` returns `text` itself). */
export function mayHaveStamps(text: string): boolean {
  return DIGIT_COLON_DIGIT.test(text) || text.includes("]:");
}

/** `text` (normalized through NFKC, lower case, the Chinese fold and the decorations step) without log time stamps and syslog process ids; `text` itself when that would leave fewer than 5 letters or digits. */
export function stripStamps(text: string): string {
  if (!mayHaveStamps(text)) return text;
  let out = text.replace(STAMP, " ");
  if (out.includes("]:")) out = out.replace(PID, "$1");
  return unlessTooLittleLeft(text, out);
}
