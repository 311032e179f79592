/**
 * Kibana 8.x and OpenSearch Dashboards 2.x saved objects from the panel
 * definitions: a data view (index pattern) on `neardup.timestamp`, a saved
 * search of duplicates, one Vega visualization per charted panel, and a
 * dashboard laying them out. Pure: no I/O.
 *
 * The objects use the 7.10 saved-object shapes (panelRefName references,
 * visState JSON) with their migration versions: OpenSearch Dashboards 2.x
 * reads them as they are, and Kibana 8.x migrates them on import.
 */
import { DEFAULT_BY_FIELD, DEFAULT_TOP, PANELS, TIME_FIELD } from "./definition.js";
import { DUPLICATES_SEARCH_ID, productSpec, type Product } from "./vega.js";

export interface SavedObject {
  type: "index-pattern" | "search" | "visualization" | "dashboard";
  id: string;
  attributes: Record<string, unknown>;
  references: { name: string; type: string; id: string }[];
  migrationVersion: Record<string, string>;
}

export interface SavedObjectsOptions {
  /** Index pattern of the data view and of every query. Default `neardup-documents*`. */
  indexPattern: string;
  /** Aggregatable field of the "rate by" panel. */
  byField: string;
  /** Size of the top-N panels. Default 10. */
  top: number;
}

/**
 * The "rate by" field of the shipped files: `fields.source`, a key of the
 * `fields` object, which neardup maps as `flattened` (Elasticsearch) or
 * `flat_object` (OpenSearch): every key is an aggregatable keyword by its path.
 */
export const SHIPPED_BY_FIELD = DEFAULT_BY_FIELD;

export const DEFAULT_SAVED_OBJECTS_OPTIONS: Readonly<SavedObjectsOptions> = Object.freeze({
  indexPattern: "neardup-documents*",
  byField: SHIPPED_BY_FIELD,
  top: DEFAULT_TOP,
});

export const INDEX_PATTERN_ID = "neardup-documents";
export const DASHBOARD_ID = "neardup-dashboard";

/** The newest migration of each type in the 7.10 line (what OpenSearch Dashboards 2.x stores). */
const MIGRATION: Record<SavedObject["type"], Record<string, string>> = {
  "index-pattern": { "index-pattern": "7.6.0" },
  search: { search: "7.9.3" },
  visualization: { visualization: "7.10.0" },
  dashboard: { dashboard: "7.9.3" },
};

const EMPTY_SEARCH = JSON.stringify({ query: { query: "", language: "kuery" }, filter: [] });

/** Saved object id of a panel's visualization. */
export function visualizationId(panelId: string): string {
  return `neardup-${panelId.replace(/_/g, "-")}`;
}

function indexPattern(o: SavedObjectsOptions): SavedObject {
  return {
    type: "index-pattern",
    id: INDEX_PATTERN_ID,
    attributes: { title: o.indexPattern, timeFieldName: TIME_FIELD },
    references: [],
    migrationVersion: MIGRATION["index-pattern"],
  };
}

function duplicatesSearch(o: SavedObjectsOptions): SavedObject {
  const ref = "kibanaSavedObjectMeta.searchSourceJSON.index";
  return {
    type: "search",
    id: DUPLICATES_SEARCH_ID,
    attributes: {
      title: "neardup: duplicates",
      description: "Documents marked near-duplicate, newest first, with their original, distance, similarity and rule.",
      columns: ["neardup.duplicate_of", "neardup.distance", "neardup.similarity", "neardup.reason", o.byField.replace(/\.keyword$/, "")],
      sort: [[TIME_FIELD, "desc"]],
      version: 1,
      kibanaSavedObjectMeta: {
        searchSourceJSON: JSON.stringify({ query: { query: "neardup.status:duplicate", language: "kuery" }, filter: [], indexRefName: ref }),
      },
    },
    references: [{ name: ref, type: "index-pattern", id: INDEX_PATTERN_ID }],
    migrationVersion: MIGRATION.search,
  };
}

function visualization(product: Product, panelId: string, o: SavedObjectsOptions): SavedObject {
  const panel = PANELS.find((p) => p.id === panelId)!;
  const spec = productSpec(panel, product, o);
  const title = `neardup: ${String(spec.title)}`;
  return {
    type: "visualization",
    id: visualizationId(panel.id),
    attributes: {
      title,
      description: panel.description,
      visState: JSON.stringify({ title, type: "vega", aggs: [], params: { spec: JSON.stringify(spec, null, 2) } }),
      uiStateJSON: "{}",
      version: 1,
      kibanaSavedObjectMeta: { searchSourceJSON: EMPTY_SEARCH },
    },
    references: [],
    migrationVersion: MIGRATION.visualization,
  };
}

/** Panels laid out left to right in rows of 48 grid columns. */
function dashboard(charted: { id: string; type: string; w: number; h: number }[]): SavedObject {
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  const panels = charted.map((c, i) => {
    if (x + c.w > 48) {
      x = 0;
      y += rowHeight;
      rowHeight = 0;
    }
    const gridData = { x, y, w: c.w, h: c.h, i: String(i + 1) };
    x += c.w;
    rowHeight = Math.max(rowHeight, c.h);
    return { version: "7.10.2", type: c.type, gridData, panelIndex: String(i + 1), embeddableConfig: {}, panelRefName: `panel_${i}` };
  });
  return {
    type: "dashboard",
    id: DASHBOARD_ID,
    attributes: {
      title: "neardup: near-duplicates",
      description: "Duplicate rate, volume, rules, distances, clusters and sources, from neardup's verdicts on each document.",
      hits: 0,
      panelsJSON: JSON.stringify(panels),
      optionsJSON: JSON.stringify({ useMargins: true, hidePanelTitles: false }),
      version: 1,
      timeRestore: true,
      timeFrom: "now-2d",
      timeTo: "now",
      refreshInterval: { pause: true, value: 0 },
      kibanaSavedObjectMeta: { searchSourceJSON: EMPTY_SEARCH },
    },
    references: charted.map((c, i) => ({ name: `panel_${i}`, type: c.type, id: c.id })),
    migrationVersion: MIGRATION.dashboard,
  };
}

/** Every saved object for one product, referenced objects first (the import API accepts any order; people read this one). */
export function savedObjects(product: Product, options: Partial<SavedObjectsOptions> = {}): SavedObject[] {
  const o = { ...DEFAULT_SAVED_OBJECTS_OPTIONS, ...options };
  const charted = PANELS.filter((p) => p.chart !== undefined);
  const visualizations = charted.map((p) => visualization(product, p.id, o));
  const layout = [
    ...charted.map((p, i) => ({ id: visualizations[i]!.id, type: "visualization", ...p.size })),
    { id: DUPLICATES_SEARCH_ID, type: "search", w: 48, h: 15 },
  ];
  return [indexPattern(o), duplicatesSearch(o), ...visualizations, dashboard(layout)];
}

/** The import API's file format: one saved object a line. */
export function toNdjson(objects: SavedObject[]): string {
  return objects.map((o) => JSON.stringify(o)).join("\n") + "\n";
}
