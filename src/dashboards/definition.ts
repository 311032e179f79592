/**
 * The one definition of neardup's dashboards. Every panel is an engine
 * aggregation, a way to turn its answer into rows, and a Vega-Lite chart over
 * those rows. From it come:
 *  - the Kibana and OpenSearch Dashboards saved objects (src/dashboards/saved-objects.ts),
 *    whose Vega-Lite specs send the aggregation to the engine and turn the
 *    answer into rows with Vega-Lite transforms ({@link Panel.transform});
 *  - `GET /v1/stats` (src/service/stats.ts), which sends the same aggregations
 *    and turns the answer into the same rows in TypeScript ({@link Panel.rows});
 *  - the page at /ui, which draws the same charts ({@link Panel.chart}) over /v1/stats.
 * A test runs the Vega-Lite transforms and `rows` on the same engine answers
 * and requires equal rows, so the products and the page cannot drift apart.
 *
 * Pure: no I/O.
 */

/** The document time field every panel is bucketed and filtered on. */
export const TIME_FIELD = "neardup.timestamp";
/** The user field the "rate by" panel groups on unless told otherwise. */
export const DEFAULT_BY_FIELD = "fields.source";
/** How many clusters / field values the top-N panels show. */
export const DEFAULT_TOP = 10;
/** Width of a similarity histogram bar. */
export const SIMILARITY_STEP = 0.05;

const DUPLICATE = { term: { "neardup.status": "duplicate" } };

/**
 * The date histogram interval: a fixed interval (`1h`) for /v1/stats, or
 * `auto` for the products, which fill in one from their time picker
 * (`%autointerval%`) and bound the histogram to it (`%timefilter%`).
 */
export type IntervalSpec = { fixed: string; min: number; max: number } | "auto";

export interface PanelParams {
  interval: IntervalSpec;
  /** Aggregatable field of the "rate by" panel (a keyword field, keyword subfield or flattened key). */
  byField: string;
  /** Size of the top-N panels. */
  top: number;
}

export type Row = Record<string, string | number | null>;

/** An engine bucket as the aggregations answer it. */
interface Bucket {
  key: string | number;
  doc_count: number;
  duplicates?: { doc_count: number };
  latest?: { value: number | null };
}

export interface Panel {
  /** Aggregation name, row set name in /v1/stats, and the suffix of the saved object ids. */
  id: string;
  title: string;
  description: string;
  /** Fields the aggregation reads; each must be aggregatable in the mapping. */
  fields(params: PanelParams): string[];
  /** The aggregation body (named {@link id} in the request). */
  agg(params: PanelParams): Record<string, unknown>;
  /** Rows from the aggregation's answer (`aggregations[id]`), as /v1/stats serves them. */
  rows(answer: unknown): Row[];
  /** Where the buckets are in the search answer, for Vega's `format.property`. */
  bucketsPath: string;
  /** Vega-Lite transforms from one bucket to one row (or, with fold, several): the same rows as {@link rows}. */
  transform: Record<string, unknown>[];
  /** Names of the row fields (what {@link rows} returns, what {@link transform} computes). */
  rowFields: string[];
  /** The chart over the rows: Vega-Lite without data (mark, encoding, chart-only transforms). `undefined` for a table. */
  chart: Record<string, unknown> | undefined;
  /** Grid size in a dashboard (48 columns wide). */
  size: { w: number; h: number };
}

function dateHistogram(interval: IntervalSpec): Record<string, unknown> {
  if (interval === "auto") {
    return {
      field: TIME_FIELD,
      interval: { "%autointerval%": true },
      min_doc_count: 0,
      extended_bounds: { min: { "%timefilter%": "min" }, max: { "%timefilter%": "max" } },
    };
  }
  return { field: TIME_FIELD, fixed_interval: interval.fixed, min_doc_count: 0, extended_bounds: { min: interval.min, max: interval.max } };
}

function buckets(answer: unknown): Bucket[] {
  const b = (answer as { buckets?: unknown } | undefined)?.buckets;
  return Array.isArray(b) ? (b as Bucket[]) : [];
}

const dupCount = (b: Bucket) => b.duplicates?.doc_count ?? 0;
const rateOf = (total: number, duplicates: number) => (total > 0 ? duplicates / total : null);
const RATE_EXPR = "datum.doc_count > 0 ? datum.duplicates.doc_count / datum.doc_count : null";
const round2 = (x: number) => Math.round(x * 100) / 100;

const rateTooltip = [
  { field: "total", type: "quantitative", title: "documents" },
  { field: "duplicates", type: "quantitative", title: "duplicates" },
  { field: "rate", type: "quantitative", title: "rate", format: ".1%" },
];

export const PANELS: readonly Panel[] = [
  {
    id: "rate_over_time",
    title: "Duplicate rate over time",
    description: "Near-duplicates / all documents, per interval.",
    fields: () => [TIME_FIELD, "neardup.status"],
    agg: (p) => ({ date_histogram: dateHistogram(p.interval), aggs: { duplicates: { filter: DUPLICATE } } }),
    rows: (answer) =>
      buckets(answer).map((b) => ({ time: Number(b.key), total: b.doc_count, duplicates: dupCount(b), rate: rateOf(b.doc_count, dupCount(b)) })),
    bucketsPath: "aggregations.rate_over_time.buckets",
    // The rate first: `duplicates` then replaces the bucket's sub-aggregation object with its count.
    transform: [
      { calculate: RATE_EXPR, as: "rate" },
      { calculate: "datum.key", as: "time" },
      { calculate: "datum.doc_count", as: "total" },
      { calculate: "datum.duplicates.doc_count", as: "duplicates" },
    ],
    rowFields: ["time", "total", "duplicates", "rate"],
    chart: {
      mark: { type: "line", point: true, tooltip: true },
      encoding: {
        x: { field: "time", type: "temporal", title: null },
        y: { field: "rate", type: "quantitative", title: "duplicate rate", axis: { format: "%" } },
        tooltip: [{ field: "time", type: "temporal", title: "from", format: "%Y-%m-%d %H:%M" }, ...rateTooltip],
      },
    },
    size: { w: 24, h: 12 },
  },
  {
    id: "volume_by_status",
    title: "Volume by status",
    description: "Documents per interval, originals and duplicates stacked.",
    fields: () => [TIME_FIELD, "neardup.status"],
    agg: (p) => ({ date_histogram: dateHistogram(p.interval), aggs: { duplicates: { filter: DUPLICATE } } }),
    rows: (answer) =>
      buckets(answer).flatMap((b) => [
        { time: Number(b.key), status: "original", count: b.doc_count - dupCount(b) },
        { time: Number(b.key), status: "duplicate", count: dupCount(b) },
      ]),
    bucketsPath: "aggregations.volume_by_status.buckets",
    transform: [
      { calculate: "datum.key", as: "time" },
      { calculate: "datum.doc_count - datum.duplicates.doc_count", as: "original" },
      { calculate: "datum.duplicates.doc_count", as: "duplicate" },
      { fold: ["original", "duplicate"], as: ["status", "count"] },
    ],
    rowFields: ["time", "status", "count"],
    chart: {
      mark: { type: "bar", tooltip: true },
      encoding: {
        x: { field: "time", type: "temporal", title: null },
        y: { field: "count", type: "quantitative", stack: "zero", title: "documents" },
        color: { field: "status", type: "nominal", scale: { domain: ["original", "duplicate"], range: ["#4c78a8", "#e45756"] }, title: "status" },
        tooltip: [
          { field: "time", type: "temporal", title: "from", format: "%Y-%m-%d %H:%M" },
          { field: "status", type: "nominal" },
          { field: "count", type: "quantitative" },
        ],
      },
    },
    size: { w: 24, h: 12 },
  },
  {
    id: "by_rule",
    title: "Duplicates by rule",
    description: "Which verdict rule marked each duplicate (neardup.reason).",
    fields: () => ["neardup.reason"],
    agg: () => ({ terms: { field: "neardup.reason", size: 20 } }),
    rows: (answer) => buckets(answer).map((b) => ({ rule: String(b.key), count: b.doc_count })),
    bucketsPath: "aggregations.by_rule.buckets",
    transform: [
      { calculate: "datum.key", as: "rule" },
      { calculate: "datum.doc_count", as: "count" },
    ],
    rowFields: ["rule", "count"],
    chart: {
      mark: { type: "bar", tooltip: true },
      encoding: {
        y: { field: "rule", type: "nominal", sort: "-x", title: null },
        x: { field: "count", type: "quantitative", title: "duplicates" },
      },
    },
    size: { w: 16, h: 10 },
  },
  {
    id: "distance",
    title: "Hamming distance of duplicates",
    description: "Simhash bits between each duplicate and its original.",
    fields: () => ["neardup.distance"],
    agg: () => ({ histogram: { field: "neardup.distance", interval: 1, min_doc_count: 0 } }),
    rows: (answer) => buckets(answer).map((b) => ({ distance: Number(b.key), count: b.doc_count })),
    bucketsPath: "aggregations.distance.buckets",
    transform: [
      { calculate: "datum.key", as: "distance" },
      { calculate: "datum.doc_count", as: "count" },
    ],
    rowFields: ["distance", "count"],
    chart: {
      mark: { type: "bar", tooltip: true },
      encoding: {
        x: { field: "distance", type: "ordinal", title: "Hamming distance (bits)", axis: { labelAngle: 0 } },
        y: { field: "count", type: "quantitative", title: "duplicates" },
      },
    },
    size: { w: 16, h: 10 },
  },
  {
    id: "similarity",
    title: "Similarity of duplicates",
    description: `Similarity to the original, in steps of ${SIMILARITY_STEP}.`,
    fields: () => ["neardup.similarity"],
    agg: () => ({ histogram: { field: "neardup.similarity", interval: SIMILARITY_STEP, min_doc_count: 0 } }),
    // Bucket keys are multiples of 0.05 in binary floating point (0.8500000000000001): round to the step.
    rows: (answer) => buckets(answer).map((b) => ({ similarity: round2(Number(b.key)), count: b.doc_count })),
    bucketsPath: "aggregations.similarity.buckets",
    transform: [
      { calculate: "round(datum.key * 100) / 100", as: "similarity" },
      { calculate: "datum.doc_count", as: "count" },
    ],
    rowFields: ["similarity", "count"],
    chart: {
      transform: [{ calculate: `datum.similarity + ${SIMILARITY_STEP}`, as: "until" }],
      mark: { type: "bar", tooltip: true },
      encoding: {
        // Already binned by the engine: `binned` makes Vega-Lite draw a histogram (heights from y).
        x: { field: "similarity", type: "quantitative", bin: { binned: true, step: SIMILARITY_STEP }, title: "similarity", scale: { domain: [0, 1] } },
        x2: { field: "until" },
        y: { field: "count", type: "quantitative", title: "duplicates" },
      },
    },
    size: { w: 16, h: 10 },
  },
  {
    id: "top_clusters",
    title: "Top clusters",
    description: "Originals with the most duplicates; click a bar for the cluster.",
    fields: () => ["neardup.duplicate_of"],
    agg: (p) => ({ terms: { field: "neardup.duplicate_of", size: p.top } }),
    rows: (answer) => buckets(answer).map((b) => ({ original: String(b.key), duplicates: b.doc_count })),
    bucketsPath: "aggregations.top_clusters.buckets",
    transform: [
      { calculate: "datum.key", as: "original" },
      { calculate: "datum.doc_count", as: "duplicates" },
    ],
    rowFields: ["original", "duplicates"],
    chart: {
      mark: { type: "bar", tooltip: true, cursor: "pointer" },
      encoding: {
        y: { field: "original", type: "nominal", sort: "-x", title: "original" },
        x: { field: "duplicates", type: "quantitative", title: "duplicates" },
        href: { field: "link" },
      },
    },
    size: { w: 24, h: 12 },
  },
  {
    id: "rate_by_field",
    title: "Duplicate rate by source",
    description: "Duplicate rate per value of a user field (default fields.source).",
    fields: (p) => [p.byField, "neardup.status"],
    agg: (p) => ({ terms: { field: p.byField, size: p.top }, aggs: { duplicates: { filter: DUPLICATE } } }),
    rows: (answer) =>
      buckets(answer).map((b) => ({ value: String(b.key), total: b.doc_count, duplicates: dupCount(b), rate: rateOf(b.doc_count, dupCount(b)) })),
    bucketsPath: "aggregations.rate_by_field.buckets",
    transform: [
      { calculate: RATE_EXPR, as: "rate" },
      { calculate: "datum.key", as: "value" },
      { calculate: "datum.doc_count", as: "total" },
      { calculate: "datum.duplicates.doc_count", as: "duplicates" },
    ],
    rowFields: ["value", "total", "duplicates", "rate"],
    chart: {
      mark: { type: "bar", tooltip: true },
      encoding: {
        y: { field: "value", type: "nominal", sort: "-x", title: null },
        x: { field: "rate", type: "quantitative", title: "duplicate rate", axis: { format: "%" } },
        tooltip: [{ field: "value", type: "nominal" }, ...rateTooltip],
      },
    },
    size: { w: 24, h: 12 },
  },
  {
    id: "recent_clusters",
    title: "Recent clusters",
    description: "Originals whose latest duplicate is the most recent.",
    fields: () => ["neardup.duplicate_of", TIME_FIELD],
    agg: (p) => ({ terms: { field: "neardup.duplicate_of", size: p.top, order: { latest: "desc" } }, aggs: { latest: { max: { field: TIME_FIELD } } } }),
    rows: (answer) => buckets(answer).map((b) => ({ original: String(b.key), duplicates: b.doc_count, latest: b.latest?.value ?? null })),
    bucketsPath: "aggregations.recent_clusters.buckets",
    transform: [
      { calculate: "datum.key", as: "original" },
      { calculate: "datum.doc_count", as: "duplicates" },
      { calculate: "datum.latest.value", as: "latest" },
    ],
    rowFields: ["original", "duplicates", "latest"],
    chart: undefined,
    size: { w: 24, h: 12 },
  },
];

/** The panel of that id (throws on an unknown id: a programming error). */
export function panel(id: string): Panel {
  const p = PANELS.find((x) => x.id === id);
  if (!p) throw new Error(`no dashboard panel ${id}`);
  return p;
}

/** Every panel's aggregation, named by panel id: one search answers them all. */
export function allAggs(params: PanelParams): Record<string, Record<string, unknown>> {
  return Object.fromEntries(PANELS.map((p) => [p.id, p.agg(params)]));
}
