import { hasErrorCode } from "../core/errors.js";
import { isClosedIndex } from "../engine/errors.js";
import type { Analysis } from "../core/fingerprinter.js";
import { DEFAULT_INLINE_TEXT_LENGTH, encodeSketch, sketchOf } from "../core/sketch.js";
import type { BulkResult, Engine } from "../engine/types.js";
import type { NeardupSource, Status } from "./candidate.js";
import type { DocInput } from "./input.js";

export interface Decision {
  status: Status;
  duplicateOf?: string | undefined;
  distance?: number | undefined;
  similarity?: number | undefined;
  reason?: string | undefined;
}

/** The `neardup` object written on document `id` (data contract v4, mappings/README.md). */
export function neardupSource(analysis: Analysis, decision: Decision, time: number, id: string): NeardupSource {
  const [seg0, seg1, seg2, seg3] = analysis.segments;
  const source: NeardupSource = {
    id,
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
  source.lsh_list = Buffer.from(lsh.join(" "), "utf8").toString("base64"); // written even when empty: it marks a v4 document
  if (analysis.lshScheme !== undefined) source.lsh_scheme = analysis.lshScheme;
  source.sketch = storedSketch(analysis).sketch;
  if (decision.status === "duplicate") {
    source.duplicate_of = decision.duplicateOf!;
    source.distance = decision.distance!;
    source.similarity = decision.similarity!;
    source.reason = decision.reason!;
  }
  return source;
}

/** The encoded re-rank field of one analysis (`neardup.sketch`). */
export interface StoredSketch {
  sketch: string;
}

const storedMemo = new WeakMap<Analysis, StoredSketch>();

/**
 * The encoded sketch of an analysis, computed once: the service warms this
 * before a document's ordered turn, so the decision itself only assembles
 * the source. Texts too long for the inline text are not stored again: when
 * the edit rule needs one, the lookup reads the document's own text field
 * and normalizes it (`neardup.normalized`, written before 0.4, is still read).
 */
export function storedSketch(analysis: Analysis): StoredSketch {
  const memo = storedMemo.get(analysis);
  if (memo) return memo;
  const stored: StoredSketch = { sketch: encodeSketch(sketchOf(analysis, DEFAULT_INLINE_TEXT_LENGTH)) };
  storedMemo.set(analysis, stored);
  return stored;
}

/** The whole source written for one document. */
export function documentSource(textField: string, doc: DocInput, analysis: Analysis, decision: Decision): Record<string, unknown> {
  if (doc.source) return { ...doc.source, neardup: neardupSource(analysis, decision, doc.time, doc.id) };
  const source: Record<string, unknown> = { [textField]: doc.text, neardup: neardupSource(analysis, decision, doc.time, doc.id) };
  if (doc.fields) source.fields = doc.fields;
  return source;
}

/** Where documents go: an index, or (rollover) a write alias over time-based indices. */
export interface WriteTarget {
  index: string;
  rollover: boolean;
}

/** A write the engine refused because its target is gone (deleted by a lifecycle policy, or an alias left without a write index). */
export function isMissingTarget(error: { type: string; reason: string } | undefined): boolean {
  if (!error) return false;
  return error.type === "index_not_found_exception" || (error.type === "illegal_argument_exception" && /no write index is defined/i.test(error.reason));
}

/**
 * Bulk-writes documents to the target. Through an alias every action carries
 * `require_alias`, so a deleted alias is never silently replaced by an
 * auto-created index of that name. Items refused because the target is gone
 * are written once more after `recreate()` has made a new target.
 */
export async function writeDocuments(
  engine: Engine,
  target: WriteTarget,
  writes: { id: string; source: Record<string, unknown> }[],
  recreate: () => Promise<void>,
  beforeSend?: () => void,
): Promise<BulkResult> {
  const action = (id: string) => ({ index: { _index: target.index, _id: id, ...(target.rollover ? { require_alias: true } : {}) } });
  const options = beforeSend ? { beforeSend } : {};
  const first = await engine.bulk(writes.flatMap((w) => [action(w.id), w.source]), options);
  const retry = first.items.flatMap((item, i) => (isMissingTarget(item.error) ? [i] : []));
  if (retry.length === 0) return first;
  await recreate();
  const second = await engine.bulk(retry.flatMap((i) => [action(writes[i]!.id), writes[i]!.source]), options);
  const items = [...first.items];
  retry.forEach((i, k) => (items[i] = second.items[k]!));
  return { errors: items.some((it) => it.error !== undefined), items };
}

/**
 * A stored document's source by id, from the index or every index behind the
 * alias (GET cannot read an alias over several indices); the newest copy by
 * `neardup.timestamp` when several indices hold the id; else, for a document
 * not yet searchable, a realtime GET. `undefined` when none finds it.
 */
export async function getDocument<T>(engine: Engine, index: string, id: string): Promise<T | undefined> {
  const response = await engine.search<T>({
    index,
    ignoreUnavailable: true,
    body: { size: 1, query: { ids: { values: [id] } }, sort: [{ "neardup.timestamp": { order: "desc", unmapped_type: "date" } }] },
  });
  const found = response.hits.hits[0]?._source;
  if (found !== undefined) return found;
  // A search sees a document once the index is refreshed (about 1 s after its write); a GET sees it at once
  // (realtime). It reads one index; over an alias of several, which GET refuses, the alias's write index, where
  // a write just acknowledged is (ops audit: under rollover, a document just written was 404 for a second).
  const get = (target: string) =>
    engine.get<T>(target, id).catch((err: unknown) => {
      if (hasErrorCode(err, "ENGINE_UNAVAILABLE")) throw err;
      // A closed index: the search above skipped it in silence; "no such document" would be untrue.
      if (isClosedIndex(err)) throw err;
      return null; // refused: an alias over several indices
    });
  const direct = await get(index);
  if (direct !== null) return direct;
  const writeIndex = (await engine.aliasIndices(index).catch(() => [])).find((i) => i.writeIndex)?.index;
  return writeIndex === undefined ? undefined : ((await get(writeIndex)) ?? undefined);
}
