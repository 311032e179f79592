import type { Analysis } from "../core/fingerprinter.js";
import { DEFAULT_INLINE_TEXT_LENGTH, editTextLimit, encodeSketch, sketchOf } from "../core/sketch.js";
import { DEFAULT_VERDICT_OPTIONS, type VerdictOptions } from "../core/verdict.js";
import type { NeardupSource, Status } from "./candidate.js";
import type { DocInput } from "./input.js";

export interface Decision {
  status: Status;
  duplicateOf?: string | undefined;
  distance?: number | undefined;
  similarity?: number | undefined;
  reason?: string | undefined;
}

/**
 * The `neardup` object written on a document (data contract v3, mappings/README.md).
 * `verdict` (the rules the service runs) decides which texts also store their
 * normalized text for the edit rule: those too long for the sketch's inline
 * text and short enough that some bucket's edit rule could hold.
 */
export function neardupSource(analysis: Analysis, decision: Decision, time: number, verdict: VerdictOptions = DEFAULT_VERDICT_OPTIONS): NeardupSource {
  const [seg0, seg1, seg2, seg3] = analysis.segments;
  const source: NeardupSource = {
    simhash: analysis.hex,
    seg0,
    seg1,
    seg2,
    seg3,
    status: decision.status,
    length: analysis.length,
    version: analysis.version,
    timestamp: new Date(time).toISOString(),
  };
  const lsh = analysis.lsh;
  if (lsh.length > 0) source.lsh = [...lsh];
  if (analysis.lshScheme !== undefined) source.lsh_scheme = analysis.lshScheme;
  source.sketch = encodeSketch(sketchOf(analysis, DEFAULT_INLINE_TEXT_LENGTH));
  if (analysis.length >= DEFAULT_INLINE_TEXT_LENGTH && analysis.length <= editTextLimit(verdict)) {
    source.normalized = Buffer.from(analysis.normalized, "utf8").toString("base64");
  }
  if (decision.status === "duplicate") {
    source.duplicate_of = decision.duplicateOf!;
    source.distance = decision.distance!;
    source.similarity = decision.similarity!;
    source.reason = decision.reason!;
  }
  return source;
}

/** The whole source written for one document. */
export function documentSource(textField: string, doc: DocInput, analysis: Analysis, decision: Decision, verdict?: VerdictOptions): Record<string, unknown> {
  const source: Record<string, unknown> = { [textField]: doc.text, neardup: neardupSource(analysis, decision, doc.time, verdict) };
  if (doc.fields) source.fields = doc.fields;
  return source;
}
