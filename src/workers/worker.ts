/**
 * A pool thread (piscina task module): builds its own fingerprinter from the
 * portable options in `workerData` when the thread starts (loading jieba's
 * dictionaries), then analyzes the texts of each task.
 */
import { workerData } from "piscina";
import { isNeardupError } from "../core/errors.js";
import { analysisData, createFingerprinter } from "../core/fingerprinter.js";
import { errorData } from "./protocol.js";
import type { AnalyzeTask, PortableFingerprinterOptions, TaskResult } from "./protocol.js";

const fingerprinter = await createFingerprinter((workerData as { options: PortableFingerprinterOptions }).options);

export default function analyzeTask(task: AnalyzeTask): TaskResult {
  return task.texts.map((text, i) => {
    try {
      return { ok: true, data: analysisData(fingerprinter.analyze(text, task.fields[i])) };
    } catch (err) {
      if (isNeardupError(err)) return { ok: false, error: errorData(err) };
      throw err;
    }
  });
}
