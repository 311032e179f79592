/** A candidate hit (doc values from the candidate query) as a re-rank candidate. */
import { fromHex } from "../../core/fingerprint.js";
import { decodeSketch, type Sketch } from "../../core/sketch.js";
import type { SearchHit } from "../../engine/types.js";
import type { Candidate } from "../candidate.js";

/** The first value of a doc-values field of a hit. */
export function first(fields: Record<string, unknown[]> | undefined, name: string): unknown {
  return fields?.[name]?.[0];
}

function sketchOfHit(fields: Record<string, unknown[]> | undefined): Sketch | undefined {
  const raw = first(fields, "neardup.sketch");
  if (typeof raw !== "string") return undefined;
  try {
    return decodeSketch(raw);
  } catch {
    return undefined; // unreadable: the re-rank falls back to the stored text
  }
}

/**
 * The document id of a hit: `neardup.id` doc values (contract v4), else `_id`
 * (absent when the query skipped stored fields: then `undefined`).
 */
export function hitId(hit: SearchHit<unknown>): string | undefined {
  const id = first(hit.fields, "neardup.id");
  if (typeof id === "string") return id;
  return typeof hit._id === "string" ? hit._id : undefined;
}

/** Whether a hit read from doc values carries both fields of contract v4 (`neardup.id`, `neardup.lsh_list`). */
export function hasV4Fields(hit: SearchHit<unknown>): boolean {
  return typeof first(hit.fields, "neardup.id") === "string" && typeof first(hit.fields, "neardup.lsh_list") === "string";
}

/** The band keys of `neardup.lsh_list` (contract v4): base64 of the keys joined by spaces. */
export function keysOfList(raw: unknown): string[] | undefined {
  if (typeof raw !== "string") return undefined;
  const joined = Buffer.from(raw, "base64").toString("utf8");
  return joined.length > 0 ? joined.split(" ") : [];
}

/** The candidate of a hit; hits without a valid simhash are skipped (`undefined`). */
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
  const lshScheme = first(hit.fields, "neardup.lsh_scheme");
  const lsh = hit.fields?.["neardup.lsh"] ?? keysOfList(first(hit.fields, "neardup.lsh_list"));
  return {
    id: hitId(hit)!,
    index: hit._index,
    simhash,
    time: Number.isFinite(time) ? time : 0,
    status: first(hit.fields, "neardup.status") === "duplicate" ? "duplicate" : "original",
    duplicateOf: typeof duplicateOf === "string" ? duplicateOf : undefined,
    lsh: Array.isArray(lsh) ? lsh.filter((k): k is string => typeof k === "string") : undefined,
    lshScheme: typeof lshScheme === "string" ? lshScheme : undefined,
    sketch: sketchOfHit(hit.fields),
  };
}
