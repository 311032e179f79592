/**
 * A pool thread (piscina task module): builds its own fingerprinter from the
 * portable options in `workerData` when the thread starts (loading jieba's
 * dictionaries), then runs tasks: analyses of texts, or a /v1/fingerprint or
 * /v1/compare report.
 */
import { workerData } from "piscina";
import { isNeardupError } from "../core/errors.js";
import { createFingerprinter } from "../core/fingerprinter.js";
import { errorData, fromPortableOptions, packAnalysis } from "./protocol.js";
import type { AnalyzeResult, PortableFingerprinterOptions, ReportResult, Task } from "./protocol.js";
import { runReport } from "./reports.js";

const fingerprinter = await createFingerprinter(fromPortableOptions((workerData as { options: PortableFingerprinterOptions }).options));

export default function runTask(task: Task): AnalyzeResult | ReportResult {
  if (task.kind === "report") {
    try {
      return { ok: true, report: runReport(fingerprinter, task.job) };
    } catch (err) {
      if (isNeardupError(err)) return { ok: false, error: errorData(err) };
      throw err;
    }
  }
  return task.texts.map((text, i) => {
    try {
      return { ok: true, packed: packAnalysis(fingerprinter.analyze(text, task.fields[i]), task.vectors ?? true) };
    } catch (err) {
      if (isNeardupError(err)) return { ok: false, error: errorData(err) };
      throw err;
    }
  });
}
