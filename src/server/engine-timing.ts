/**
 * How long each engine call takes, by method (`search`, `msearch`, `bulk`,
 * `mget`, `termDocFrequencies`, ...) and outcome (`ok`, or the error's code):
 * `neardup_engine_request_duration_seconds`. An operator reads from it which
 * engine calls a slow check or ingest waits on (docs/operations.md). The
 * labels are the Engine interface's method names and the error codes, both
 * bounded sets; an index name never becomes a label.
 */
import { isNeardupError } from "../core/errors.js";
import { guardCalls } from "../engine/guard.js";
import type { Engine } from "../engine/index.js";

/** What the timing records into (a prom-client Histogram fits). */
export interface DurationSink {
  observe(labels: { operation: string; outcome: string }, seconds: number): void;
}

/** The engine with every call (all but `close` and the non-function members) timed into `sink`. */
export function withTiming(engine: Engine, sink: DurationSink, now: () => number = () => performance.now()): Engine {
  return guardCalls(engine, async (operation, call) => {
    const started = now();
    try {
      const result = await call();
      sink.observe({ operation, outcome: "ok" }, (now() - started) / 1000);
      return result;
    } catch (err) {
      sink.observe({ operation, outcome: isNeardupError(err) ? err.code.toLowerCase() : "error" }, (now() - started) / 1000);
      throw err;
    }
  });
}
