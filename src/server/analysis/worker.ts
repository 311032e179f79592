/**
 * The analysis worker thread: runs /v1/fingerprint and /v1/compare jobs on
 * large texts off the event loop. It builds its own fingerprinter from the
 * options the service passes (workerData), so results match the main thread's.
 */
import { parentPort, workerData } from "node:worker_threads";
import { isNeardupError } from "../../core/errors.js";
import { createFingerprinter, type FingerprinterOptions } from "../../core/fingerprinter.js";
import { runJob, type AnalysisJob } from "./compute.js";

const options = (workerData ?? {}) as FingerprinterOptions;
const fingerprinter = createFingerprinter(options);

parentPort!.on("message", (message: { id: number; job: AnalysisJob }) => {
  fingerprinter.then(
    (fp) => {
      try {
        const result = runJob(fp, message.job);
        try {
          parentPort!.postMessage({ id: message.id, ok: true, result });
        } catch (err) {
          // A result that cannot be cloned (a field added to Analysis that is not plain data): the caller falls back.
          parentPort!.postMessage({ id: message.id, ok: false, error: { code: "INTERNAL", message: `result not transferable: ${String(err)}` } });
        }
      } catch (err) {
        const error = isNeardupError(err) ? { code: err.code, message: err.message, field: err.field } : { code: "INTERNAL", message: String(err) };
        parentPort!.postMessage({ id: message.id, ok: false, error });
      }
    },
    (err: unknown) => parentPort!.postMessage({ id: message.id, ok: false, error: { code: "INTERNAL", message: `the analysis worker could not load: ${String(err)}` } }),
  );
});
