import componentTemplate from "../../mappings/component-template.neardup.json" with { type: "json" };
import documentsTemplate from "../../mappings/index-template.neardup-documents.json" with { type: "json" };
import { NeardupError } from "../core/errors.js";
import type { Engine, EngineInfo } from "./types.js";

/** Name of the component template holding the `neardup.*` fields. */
export const COMPONENT_TEMPLATE = "neardup";
/** Name of the index template for the HTTP API's default index. */
export const DOCUMENTS_TEMPLATE = "neardup-documents";
/** Data contract version carried in the templates' `_meta`. */
export const CONTRACT_VERSION = componentTemplate._meta.neardup_contract;

/**
 * The mapping of the HTTP API's `fields` object, the client's own data. It is
 * ONE field in the index mapping however many keys clients send, so no client
 * can use up the index's field limit (`index.mapping.total_fields.limit`,
 * 1,000 by default) or make a key's type conflict with another client's:
 * - Elasticsearch 7.3+: `flattened` (every leaf is a keyword, searchable as
 *   `fields.a.b`; longer values than 8,191 characters are kept but not indexed);
 * - OpenSearch 2.7+: `flat_object` (the same idea);
 * - older OpenSearch: an object with `enabled: false` (kept in `_source`, not searchable).
 */
export function fieldsMapping(info: Pick<EngineInfo, "kind" | "version">): Record<string, unknown> {
  const [major = 0, minor = 0] = info.version.split(".").map(Number);
  const atLeast = (ma: number, mi: number) => major > ma || (major === ma && minor >= mi);
  if (info.kind === "elasticsearch" && atLeast(7, 3)) return { type: "flattened", ignore_above: 8191 };
  if (info.kind === "opensearch" && atLeast(2, 7)) return { type: "flat_object" };
  return { type: "object", enabled: false };
}

/**
 * The templates as shipped in `mappings/`, deep-copied so callers can't mutate
 * the originals. Given the engine, the documents template maps `fields` for it
 * ({@link fieldsMapping}); the shipped file has the engine-neutral fallback.
 */
export function templates(info?: Pick<EngineInfo, "kind" | "version">): { component: Record<string, unknown>; documents: Record<string, unknown> } {
  const documents: { template: { settings: Record<string, unknown>; mappings: { properties: Record<string, unknown> } } } = structuredClone(documentsTemplate);
  if (info) {
    documents.template.mappings.properties.fields = fieldsMapping(info);
    Object.assign(documents.template.settings, fieldsSettings(info));
  }
  return { component: structuredClone(componentTemplate), documents };
}

/**
 * Creates an index with `mappings` plus the engine's `fields` mapping
 * ({@link fieldsMapping}) and {@link indexSettings}. When an index template matching the name maps
 * `fields` another way and the engine cannot merge the two (OpenSearch; e.g.
 * the template of an older neardup during a rolling upgrade, or the user's
 * own), the index is created with the template's `fields` mapping instead.
 * Resolves `false` when the index already exists.
 */
export async function createIndexWithFields(engine: Engine, index: string, mappings: { properties: Record<string, unknown> }): Promise<boolean> {
  try {
    return await engine.createIndex(index, {
      settings: indexSettings(engine.info),
      mappings: { ...mappings, properties: { ...mappings.properties, fields: fieldsMapping(engine.info) } },
    });
  } catch (err) {
    if (!(err instanceof NeardupError && /can't merge a .*mapping \[fields\]/.test(err.message))) throw err;
    return engine.createIndex(index, { mappings });
  }
}

/**
 * The settings of an index the service creates itself (the window, or each
 * index behind its write alias): the documents template's merge policy, and
 * {@link fieldsSettings}.
 *
 * The merge policy: every document written is also looked up, and each
 * lookup seeks its segment and band keys in every segment of the window, so
 * the window is kept in fewer segments than Lucene's default (at most 4 per
 * tier instead of 10; segments under 64 MB merged as if they were 64 MB, so
 * the small segments a steady ingest flushes are merged soon). On a window of
 * 1.2M documents, 39 segments merged to 9 took a grouped lookup of 250
 * documents from 147 to 102 ms and `/v1/check` p50 from 21 to 13 ms; ingest
 * with it was not slower (docs/benchmarks.md).
 */
export function indexSettings(info: Pick<EngineInfo, "kind" | "version">): Record<string, unknown> {
  const merge = Object.entries(documentsTemplate.template.settings).filter(([key]) => key.startsWith("index.merge."));
  return { ...Object.fromEntries(merge), ...fieldsSettings(info) };
}

/**
 * Index settings that go with {@link fieldsMapping}. OpenSearch 2.x cannot
 * read a cached aggregation over a `flat_object` key back from the shard
 * request cache ("Unknown NamedWriteable [DocValueFormat][flat_object]" on
 * the second identical search, seen on 2.19.6), so the cache is off there.
 */
export function fieldsSettings(info: Pick<EngineInfo, "kind" | "version">): Record<string, unknown> {
  return fieldsMapping(info).type === "flat_object" ? { "index.requests.cache.enable": false } : {};
}

/**
 * Installs the component template and the documents index template.
 * Idempotent: both are PUTs of the same body, safe to repeat at every start
 * and from several sidecars at once.
 */
export async function installTemplates(engine: Engine): Promise<void> {
  const { component, documents } = templates(engine.info);
  await engine.putComponentTemplate(COMPONENT_TEMPLATE, component);
  await engine.putIndexTemplate(DOCUMENTS_TEMPLATE, documents);
}
