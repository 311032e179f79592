import componentTemplate from "../../mappings/component-template.neardup.json" with { type: "json" };
import documentsTemplate from "../../mappings/index-template.neardup-documents.json" with { type: "json" };
import type { Engine } from "./types.js";

/** Name of the component template holding the `neardup.*` fields. */
export const COMPONENT_TEMPLATE = "neardup";
/** Name of the index template for the HTTP API's default index. */
export const DOCUMENTS_TEMPLATE = "neardup-documents";
/** Data contract version carried in the templates' `_meta`. */
export const CONTRACT_VERSION = componentTemplate._meta.neardup_contract;

/** The templates as shipped in `mappings/`, deep-copied so callers can't mutate the originals. */
export function templates(): { component: Record<string, unknown>; documents: Record<string, unknown> } {
  return { component: structuredClone(componentTemplate), documents: structuredClone(documentsTemplate) };
}

/**
 * Installs the component template and the documents index template.
 * Idempotent: both are PUTs of the same body, safe to repeat at every start
 * and from several sidecars at once.
 */
export async function installTemplates(engine: Engine): Promise<void> {
  const { component, documents } = templates();
  await engine.putComponentTemplate(COMPONENT_TEMPLATE, component);
  await engine.putIndexTemplate(DOCUMENTS_TEMPLATE, documents);
}
