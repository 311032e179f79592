/**
 * Vega-Lite specs from the panel definitions, for each place that draws them:
 * Kibana and OpenSearch Dashboards (the spec queries the engine itself through
 * their `url: {index, body}` extension) and neardup's own page (rows from
 * /v1/stats). Pure: no I/O.
 */
import { TIME_FIELD, type Panel, type PanelParams } from "./definition.js";

export type Product = "kibana" | "opensearch-dashboards";
export type Target = Product | "page";

/** The products both accept Vega-Lite v5 specs (their Vega plugin compiles them). */
export const VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";

export interface ProductSpecOptions {
  /** Index pattern the specs query, e.g. `neardup-documents*`. */
  indexPattern: string;
  /** Aggregatable field of the "rate by" panel. */
  byField: string;
  top: number;
}

/** Id of the saved search the "top clusters" bars open in Discover. */
export const DUPLICATES_SEARCH_ID = "neardup-duplicates";

/**
 * Where a top-clusters bar leads. In the products: Discover, on the saved
 * search of duplicates, filtered to the cluster (a relative link, so it stays
 * in the current Kibana space). On the page: the cluster view (`#cluster=`).
 */
function linkTransform(target: Target): Record<string, unknown>[] {
  if (target === "page") return [{ calculate: "'#cluster=' + datum.original", as: "link" }];
  // %27 and %22 are ' and ": a rison string holding a KQL phrase.
  return [
    {
      calculate: `'discover#/view/${DUPLICATES_SEARCH_ID}?_a=(query:(language:kuery,query:%27neardup.duplicate_of:%22' + datum.original + '%22%27))'`,
      as: "link",
    },
  ];
}

function chartParts(panel: Panel, target: Target): { transform: Record<string, unknown>[]; rest: Record<string, unknown> } {
  if (!panel.chart) throw new Error(`panel ${panel.id} has no chart`);
  const { transform = [], ...rest } = panel.chart as { transform?: Record<string, unknown>[] };
  const links = panel.id === "top_clusters" ? linkTransform(target) : [];
  return { transform: [...links, ...transform], rest };
}

/** The spec a product renders: it asks the engine itself, in the dashboard's time range and filters. */
export function productSpec(panel: Panel, target: Product, options: ProductSpecOptions): Record<string, unknown> {
  const params: PanelParams = { interval: "auto", byField: options.byField, top: options.top };
  const { transform, rest } = chartParts(panel, target);
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: panel.id === "rate_by_field" ? `Duplicate rate by ${options.byField}` : panel.title,
    description: panel.description,
    data: {
      url: {
        "%context%": true,
        "%timefield%": TIME_FIELD,
        index: options.indexPattern,
        body: { size: 0, aggs: { [panel.id]: panel.agg(params) } },
      },
      format: { property: panel.bucketsPath },
    },
    transform: [...panel.transform, ...transform],
    ...rest,
  };
}

/**
 * The spec the page renders: the same chart over rows of /v1/stats (the page
 * sets `data.values`). No `$schema`: the page's Vega-Lite (v6) would warn about a v5 one.
 */
export function pageSpec(panel: Panel): Record<string, unknown> {
  const { transform, rest } = chartParts(panel, "page");
  return {
    description: panel.description,
    width: "container",
    height: 220,
    data: { name: "rows" },
    ...(transform.length > 0 ? { transform } : {}),
    ...rest,
  };
}
