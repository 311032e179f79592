/** Issue 11: `fields` is one mapped field per engine, so no client can use up the index's field limit. */
import { describe, expect, it } from "vitest";
import { fieldsMapping, fieldsSettings, templates } from "../../../src/engine/index.js";

describe("fieldsMapping", () => {
  it.each([
    ["elasticsearch", "8.19.2", { type: "flattened", ignore_above: 8191 }],
    ["elasticsearch", "7.3.0", { type: "flattened", ignore_above: 8191 }],
    ["elasticsearch", "7.2.1", { type: "object", enabled: false }],
    ["opensearch", "2.19.6", { type: "flat_object" }],
    ["opensearch", "2.7.0", { type: "flat_object" }],
    ["opensearch", "3.0.0", { type: "flat_object" }],
    ["opensearch", "2.6.0", { type: "object", enabled: false }],
    ["opensearch", "1.3.20", { type: "object", enabled: false }],
  ] as const)("%s %s maps fields as %j", (kind, version, mapping) => {
    expect(fieldsMapping({ kind, version })).toEqual(mapping);
  });
});

describe("templates", () => {
  const fieldsOf = (t: Record<string, unknown>) => (t as { template: { mappings: { properties: { fields: unknown } } } }).template.mappings.properties.fields;
  it("ships the engine-neutral fallback and maps fields for the engine it installs on", () => {
    expect(fieldsOf(templates().documents)).toEqual({ type: "object", enabled: false });
    expect(fieldsOf(templates({ kind: "elasticsearch", version: "8.19.2" }).documents)).toEqual({ type: "flattened", ignore_above: 8191 });
    expect(fieldsOf(templates({ kind: "opensearch", version: "2.19.6" }).documents)).toEqual({ type: "flat_object" });
    expect(fieldsOf(templates().documents)).toEqual({ type: "object", enabled: false }); // the shipped copy is not mutated
  });
});

describe("fieldsSettings", () => {
  it("turns the shard request cache off where fields is flat_object (OpenSearch cannot read it back), and leaves it alone elsewhere", () => {
    expect(fieldsSettings({ kind: "opensearch", version: "2.19.6" })).toEqual({ "index.requests.cache.enable": false });
    expect(fieldsSettings({ kind: "elasticsearch", version: "8.19.2" })).toEqual({});
    expect((templates({ kind: "opensearch", version: "2.19.6" }).documents as { template: { settings: Record<string, unknown> } }).template.settings).toMatchObject({ "index.requests.cache.enable": false });
  });
});
