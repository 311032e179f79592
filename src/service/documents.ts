import type { Analysis } from "../core/fingerprinter.js";
import { fromHex } from "../core/fingerprint.js";
import type { SearchHit } from "../engine/types.js";
import type { Candidate, NeardupSource, Status } from "./candidate.js";
import type { DocInput } from "./input.js";

export interface Decision {
  status: Status;
  duplicateOf?: string | undefined;
  distance?: number | undefined;
  similarity?: number | undefined;
  reason?: string | undefined;
}

/** The `neardup` object written on a document (data contract v2, mappings/README.md). */
export function neardupSource(analysis: Analysis, decision: Decision, time: number): NeardupSource {
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
  if (decision.status === "duplicate") {
    source.duplicate_of = decision.duplicateOf!;
    source.distance = decision.distance!;
    source.similarity = decision.similarity!;
    source.reason = decision.reason!;
  }
  return source;
}

/** The whole source written for one document. */
export function documentSource(textField: string, doc: DocInput, analysis: Analysis, decision: Decision): Record<string, unknown> {
  if (doc.source) return { ...doc.source, neardup: neardupSource(analysis, decision, doc.time) };
  const source: Record<string, unknown> = { [textField]: doc.text, neardup: neardupSource(analysis, decision, doc.time) };
  if (doc.fields) source.fields = doc.fields;
  return source;
}

function first(fields: Record<string, unknown[]> | undefined, name: string): unknown {
  return fields?.[name]?.[0];
}

/** A candidate hit (doc values from {@link candidateQuery}) as a re-rank candidate; hits without a valid simhash are skipped. */
export function candidateFromHit(hit: SearchHit<unknown>): Candidate | undefined {
  const hex = first(hit.fields, "neardup.simhash");
  if (typeof hex !== "string") return undefined;
  let simhash;
  try {
    simhash = fromHex(hex);
  } catch {
    return undefined;
  }
  const time = Number(first(hit.fields, "neardup.timestamp"));
  const duplicateOf = first(hit.fields, "neardup.duplicate_of");
  const lsh = hit.fields?.["neardup.lsh"];
  return {
    lsh: Array.isArray(lsh) ? lsh.filter((k): k is string => typeof k === "string") : undefined,
    id: hit._id,
    simhash,
    time: Number.isFinite(time) ? time : 0,
    status: first(hit.fields, "neardup.status") === "duplicate" ? "duplicate" : "original",
    duplicateOf: typeof duplicateOf === "string" ? duplicateOf : undefined,
  };
}
