/**
 * The shipped Kibana / OpenSearch Dashboards files (issue 13): generated from
 * the one definition, every object parses, every reference resolves, every
 * spec compiles with Vega-Lite, and every field a panel aggregates exists in
 * the neardup mapping with an aggregatable type.
 */
import { fieldsMapping } from "../../../src/engine/templates.js";
import { readFileSync } from "node:fs";
import * as vl from "vega-lite";
import { describe, expect, it } from "vitest";
import { PANELS, TIME_FIELD } from "../../../src/dashboards/definition.js";
import { SHIPPED_FILES, shippedContent } from "../../../src/dashboards/generate.js";
import { SHIPPED_BY_FIELD, savedObjects, type SavedObject } from "../../../src/dashboards/saved-objects.js";
import { pageSpec } from "../../../src/dashboards/vega.js";
import componentTemplate from "../../../mappings/component-template.neardup.json" with { type: "json" };

const AGGREGATABLE = new Set(["keyword", "date", "short", "integer", "long", "float", "double", "boolean"]);
const neardupFields = componentTemplate.template.mappings.properties.neardup.properties as Record<string, { type: string }>;

/** Every field an aggregation body names (`field` values, `term` keys). */
function aggregatedFields(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => aggregatedFields(n, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "field" && typeof v === "string") out.add(v);
      else if (k === "term" && v && typeof v === "object") Object.keys(v).forEach((f) => out.add(f));
      else aggregatedFields(v, out);
    }
  }
  return out;
}

function specOf(o: SavedObject): Record<string, unknown> {
  const visState = JSON.parse(o.attributes.visState as string) as { type: string; params: { spec: string } };
  expect(visState.type).toBe("vega");
  return JSON.parse(visState.params.spec) as Record<string, unknown>;
}

describe.each(Object.entries(SHIPPED_FILES))("%s saved objects (%s)", (product, file) => {
  const text = readFileSync(file, "utf8");
  const objects = text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as SavedObject);

  it("the committed file is exactly what `npm run dashboards` writes from the definition", () => {
    expect(text).toBe(shippedContent(product as "kibana"));
  });

  it("holds a data view on neardup.timestamp, a dashboard, and one visualization per charted panel; ids are unique", () => {
    expect(new Set(objects.map((o) => o.id)).size).toBe(objects.length);
    const pattern = objects.find((o) => o.type === "index-pattern")!;
    expect(pattern.attributes).toEqual({ title: "neardup-documents*", timeFieldName: TIME_FIELD });
    expect(neardupFields.timestamp!.type).toBe("date");
    expect(objects.filter((o) => o.type === "visualization")).toHaveLength(PANELS.filter((p) => p.chart).length);
    expect(objects.filter((o) => o.type === "dashboard")).toHaveLength(1);
  });

  it("every reference resolves, and every dashboard panel and search source names one", () => {
    const ids = new Set(objects.map((o) => `${o.type}:${o.id}`));
    for (const o of objects) {
      for (const r of o.references) expect(ids, `${o.id} -> ${r.type}:${r.id}`).toContain(`${r.type}:${r.id}`);
      const names = new Set(o.references.map((r) => r.name));
      const meta = o.attributes.kibanaSavedObjectMeta as { searchSourceJSON: string } | undefined;
      const source = JSON.parse(meta?.searchSourceJSON ?? "{}") as { indexRefName?: string };
      if (source.indexRefName) expect(names).toContain(source.indexRefName);
      if (o.type === "dashboard") {
        const panels = JSON.parse(o.attributes.panelsJSON as string) as { panelRefName: string; gridData: { x: number; w: number } }[];
        expect(panels).toHaveLength(o.references.length);
        for (const p of panels) {
          expect(names).toContain(p.panelRefName);
          expect(p.gridData.x + p.gridData.w).toBeLessThanOrEqual(48);
        }
      }
    }
  });

  it("every visualization is a Vega-Lite spec that compiles, asks for the dashboard context, and reads its buckets", () => {
    for (const o of objects.filter((x) => x.type === "visualization")) {
      const spec = specOf(o);
      const data = spec.data as { url: Record<string, unknown>; format: { property: string } };
      expect(data.url).toMatchObject({ "%context%": true, "%timefield%": TIME_FIELD, index: "neardup-documents*" });
      expect(Object.keys(data.url.body as object).sort()).toEqual(["aggs", "size"]); // the products refuse a query beside %context%
      const [aggName] = Object.keys((data.url.body as { aggs: object }).aggs);
      expect(data.format.property).toBe(`aggregations.${aggName}.buckets`);
      expect(() => vl.compile({ ...spec, data: { values: [] } } as never)).not.toThrow();
    }
  });

  it("every field a panel aggregates exists in the mapping with an aggregatable type", () => {
    for (const o of objects.filter((x) => x.type === "visualization")) {
      for (const field of aggregatedFields((specOf(o).data as { url: unknown }).url)) {
        if (field === SHIPPED_BY_FIELD) {
          // A key of the user's `fields` object: one flattened / flat_object field, every key an aggregatable keyword.
          expect(fieldsMapping({ kind: "elasticsearch", version: "8.19.0" }).type).toBe("flattened");
          expect(fieldsMapping({ kind: "opensearch", version: "2.19.0" }).type).toBe("flat_object");
          continue;
        }
        const name = field.replace(/^neardup\./, "");
        expect(field, `${o.id} aggregates ${field}`).toMatch(/^neardup\./);
        expect(AGGREGATABLE, `${field} is ${neardupFields[name]?.type}`).toContain(neardupFields[name]?.type);
      }
    }
  });
});

describe("one definition for the products and the page", () => {
  it("the panel's fields are the fields its aggregation names", () => {
    for (const p of PANELS) {
      const params = { interval: { fixed: "1h", min: 0, max: 1 }, byField: "fields.source", top: 10 } as const;
      expect([...aggregatedFields(p.agg(params))].sort(), p.id).toEqual([...new Set(p.fields(params))].sort());
    }
  });

  it("the page draws the same mark and encoding as the products", () => {
    const kibana = savedObjects("kibana").filter((o) => o.type === "visualization");
    for (const p of PANELS.filter((x) => x.chart)) {
      const product = specOf(kibana.find((o) => specOf(o).data && (specOf(o).data as { format: { property: string } }).format.property === p.bucketsPath)!);
      const page = pageSpec(p);
      expect(page.mark).toEqual(product.mark);
      expect(page.encoding).toEqual(product.encoding);
      expect(() => vl.compile({ ...page, data: { values: [] } } as never)).not.toThrow();
    }
  });

  it("options change the index pattern and the rate-by field everywhere", () => {
    const objects = savedObjects("opensearch-dashboards", { indexPattern: "logs-*", byField: "fields.tenant", top: 5 });
    const text = JSON.stringify(objects);
    expect(text).not.toContain("neardup-documents*");
    expect(text).toContain("fields.tenant");
    expect(objects[0]!.attributes.title).toBe("logs-*");
  });
});
