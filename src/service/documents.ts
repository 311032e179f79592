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

/** The `neardup` object written on a document (data contract v1). */
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
  const source: Record<string, unknown> = { [textField]: doc.text, neardup: neardupSource(analysis, decision, doc.time) };
  if (doc.fields) source.fields = doc.fields;
  return source;
}

interface StoredSource {
  neardup?: { simhash?: string; timestamp?: string | number; status?: Status; duplicate_of?: string };
  [field: string]: unknown;
}

/** A search hit as a re-rank candidate; hits without a valid simhash are skipped. */
export function candidateFromHit(hit: SearchHit<StoredSource>, textField: string): Candidate | undefined {
  const nd = hit._source?.neardup;
  if (!nd?.simhash) return undefined;
  let simhash;
  try {
    simhash = fromHex(nd.simhash);
  } catch {
    return undefined;
  }
  const time = typeof nd.timestamp === "number" ? nd.timestamp : Date.parse(nd.timestamp ?? "");
  const text = hit._source?.[textField];
  return {
    id: hit._id,
    simhash,
    time: Number.isFinite(time) ? time : 0,
    status: nd.status === "duplicate" ? "duplicate" : "original",
    duplicateOf: nd.duplicate_of,
    text: typeof text === "string" ? text : undefined,
  };
}
