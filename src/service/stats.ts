/**
 * Duplicate-rate statistics from the engine: the dashboard panels'
 * aggregations (src/dashboards/definition.ts), sent in one search over a time
 * range, turned into rows. `GET /v1/stats` serves them and the page at /ui draws them.
 */
import { NeardupError, isNeardupError } from "../core/errors.js";
import { isClosedIndex } from "../engine/errors.js";
import { PANELS, TIME_FIELD, allAggs, type Row } from "../dashboards/definition.js";
import { totalHits } from "../engine/responses.js";
import type { Engine } from "../engine/types.js";

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Intervals chosen when none is given: the smallest giving at most {@link AUTO_BUCKETS} buckets. */
const AUTO_INTERVALS = ["1m", "5m", "10m", "30m", "1h", "3h", "12h", "1d", "7d", "30d", "365d"];
const AUTO_BUCKETS = 60;
/** Most date-histogram buckets one request may ask for. */
export const MAX_BUCKETS = 2000;

export interface StatsQuery {
  /** Start of the range, epoch ms (inclusive). */
  from: number;
  /** End of the range, epoch ms (inclusive, as the products' time filter). */
  to: number;
  /** Fixed interval, e.g. `1h`; `undefined` picks one. */
  interval?: string | undefined;
  /** User field to group the rate by, e.g. `fields.source`. */
  by: string;
  /**
   * Whether the caller named `by`: such a field the index does not map, or cannot aggregate (a text field with
   * no `.keyword`), is refused (INVALID_INPUT naming `by`). The default field is never refused, since an index
   * may well have no `fields` (one of the user's own, or OpenSearch before 2.7): its rows are then empty.
   */
  byGiven?: boolean;
  /** Size of the top-N lists. */
  top: number;
}

export interface Stats {
  from: string;
  to: string;
  interval: string;
  /** The field asked for. */
  by: string;
  /** The field aggregated: `by`, or its `.keyword` subfield when `by` is a text field. */
  by_field: string;
  total: number;
  duplicates: number;
  /** duplicates / total, `null` when there are no documents. */
  rate: number | null;
  /** Rows of each dashboard panel, by panel id. */
  panels: Record<string, Row[]>;
}

/** Milliseconds of a fixed interval like `90s`, `1h`, `2d`; throws INVALID_INPUT naming `field`. */
export function intervalMs(interval: string, field = "interval"): number {
  const m = /^([1-9]\d{0,5})(ms|s|m|h|d)$/.exec(interval);
  if (!m) throw new NeardupError("INVALID_INPUT", `${field} must be a whole number and a unit (ms, s, m, h, d), like 1h or 30m; got ${JSON.stringify(interval)}`, { field });
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/**
 * Buckets of `ms` over [from, to], both included, as the engine's date histogram makes them: on multiples of
 * the interval since the epoch (as Kibana and OpenSearch Dashboards draw them), so the first and last may
 * hold part of an interval only.
 */
export function bucketCount(from: number, to: number, ms: number): number {
  return Math.floor(to / ms) - Math.floor(from / ms) + 1;
}

/** The interval for a range: the given one (checked against {@link MAX_BUCKETS}) or the smallest with at most 60 buckets. */
export function chooseInterval(from: number, to: number, interval: string | undefined): string {
  if (interval === undefined) return AUTO_INTERVALS.find((i) => bucketCount(from, to, intervalMs(i)) <= AUTO_BUCKETS) ?? AUTO_INTERVALS.at(-1)!;
  const buckets = bucketCount(from, to, intervalMs(interval));
  if (buckets > MAX_BUCKETS) {
    throw new NeardupError("INVALID_INPUT", `interval ${interval} gives ${buckets} buckets over the range; the most is ${MAX_BUCKETS}: choose a longer interval or a shorter range`, { field: "interval" });
  }
  return interval;
}

/** Whether the engine refused to aggregate a text field (it then needs its `.keyword` subfield). */
function isTextFieldError(err: unknown): boolean {
  return isNeardupError(err) && /fielddata|text fields are not optimised/i.test(err.message);
}

/** Field types that hold keys aggregatable as `<field>.<key>`. */
const KEYED_TYPES = new Set(["flattened", "flat_object"]);

/** The names to ask the field mapping for: `by`, its `.keyword` subfield, and each parent (a flattened field's keys are not listed). */
function namesOf(by: string): string[] {
  const parts = by.split(".");
  return [by, `${by}.keyword`, ...parts.slice(1).map((_, k) => parts.slice(0, k + 1).join("."))];
}

/**
 * Why `by` cannot be aggregated on `index` (undefined when it can), given the types the index maps
 * ({@link Engine.fieldTypes} of {@link namesOf}) and `byField`, the field the search aggregated.
 * The engines answer a `terms` aggregation on an unmapped field with no buckets, as if no document had a value.
 */
export function byProblem(index: string, by: string, byField: string, types: ReadonlyMap<string, readonly string[]>): string | undefined {
  if (byField !== by && !types.has(byField)) return `by ${JSON.stringify(by)} is a text field with no keyword subfield (${byField}): the engine cannot aggregate it`;
  if (types.has(by)) return undefined;
  const parts = by.split(".");
  for (let k = 1; k < parts.length; k++) if (types.get(parts.slice(0, k).join("."))?.some((t) => KEYED_TYPES.has(t))) return undefined;
  return `by ${JSON.stringify(by)} is not a field in the mapping of index ${JSON.stringify(index)}: nothing to aggregate (a field is named by its full path, like fields.source)`;
}

interface StatsAnswer {
  hits: { total: { value: number; relation: string } | number };
  aggregations?: Record<string, unknown> & { duplicates?: { doc_count: number } };
}

/**
 * One search, every panel. `by` is aggregated as given (a keyword field, or a
 * key of a `flattened` / `flat_object` field); when the engine answers that it
 * is a text field (a dynamically mapped string), its `.keyword` subfield is used.
 */
export async function computeStats(engine: Engine, index: string, query: StatsQuery): Promise<Stats> {
  if (!(query.from < query.to)) throw new NeardupError("INVALID_INPUT", `from must be before to; got from ${new Date(query.from).toISOString()}, to ${new Date(query.to).toISOString()}`, { field: "from" });
  const interval = chooseInterval(query.from, query.to, query.interval);
  const search = (byField: string) =>
    engine.search<never>({
      index,
      body: {
        size: 0,
        track_total_hits: true,
        query: { range: { [TIME_FIELD]: { gte: query.from, lte: query.to, format: "epoch_millis" } } },
        aggs: {
          duplicates: { filter: { term: { "neardup.status": "duplicate" } } },
          ...allAggs({ interval: { fixed: interval, min: query.from, max: query.to }, byField, top: query.top }),
        },
      },
    });
  const types = query.byGiven ? engine.fieldTypes(index, namesOf(query.by)) : undefined;
  types?.catch(() => undefined); // awaited below, after the search (whose error comes first)
  let byField = query.by;
  let answer: StatsAnswer;
  try {
    answer = await search(byField).catch((err: unknown) => {
      if (!isTextFieldError(err) || byField.endsWith(".keyword")) throw err;
      byField = `${query.by}.keyword`;
      return search(byField);
    });
  } catch (err) {
    // The times are checked above, so an engine 400 here is about `by` (an object field, say): the caller's to fix.
    // A closed index is the engine's state, not the caller's: its error stands.
    if (isNeardupError(err) && (err.details as { status?: number } | undefined)?.status === 400 && !isClosedIndex(err)) {
      throw new NeardupError("INVALID_INPUT", `by ${JSON.stringify(query.by)} cannot be aggregated by the engine (${err.message})`, { field: "by", cause: err });
    }
    throw err;
  }
  const problem = types && byProblem(index, query.by, byField, await types);
  if (problem) throw new NeardupError("INVALID_INPUT", problem, { field: "by" });
  const aggs = answer.aggregations ?? {};
  const total = totalHits(answer as never);
  const duplicates = aggs.duplicates?.doc_count ?? 0;
  return {
    from: new Date(query.from).toISOString(),
    to: new Date(query.to).toISOString(),
    interval,
    by: query.by,
    by_field: byField,
    total,
    duplicates,
    rate: total > 0 ? duplicates / total : null,
    panels: Object.fromEntries(PANELS.map((p) => [p.id, p.rows(aggs[p.id])])),
  };
}
