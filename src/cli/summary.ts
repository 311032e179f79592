/** The human-readable summary printed to stderr at the end of `neardup dedup`. */
import type { RunDedupResult } from "./run-dedup.js";

const int = new Intl.NumberFormat("en-US");

export function formatSummary(result: RunDedupResult, seconds: number): string {
  const s = result.summary;
  const rate = `${(s.duplicateRate * 100).toFixed(1)}%`;
  const lines = [
    `documents:        ${int.format(s.documents)}`,
    `duplicates:       ${int.format(s.duplicates)} (${rate})`,
    `originals:        ${int.format(s.documents - s.duplicates)}`,
  ];
  if (result.badLines > 0) lines.push(`bad lines:        ${int.format(result.badLines)} (reported above${result.stoppedAtLine === undefined ? ", skipped" : ""})`);
  if (s.largestClusters.length > 0) {
    lines.push("largest clusters: " + s.largestClusters.map((c) => `${c.id} (${int.format(c.size)} docs)`).join(", "));
  }
  const perSecond = seconds > 0 ? Math.round(s.documents / seconds) : 0;
  lines.push(`time:             ${seconds.toFixed(1)} s (${int.format(perSecond)} docs/s)`);
  if (result.stoppedAtLine !== undefined) lines.push(`stopped at line ${result.stoppedAtLine} (--strict)`);
  return lines.join("\n");
}
