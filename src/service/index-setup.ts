/**
 * Making the index a service writes to ready for neardup (`DedupService.ensureIndex`): created with the neardup
 * mapping when it does not exist, the mapping added to an existing one, and, with rollover, every index behind
 * the write alias mapped and a write index made when a lifecycle policy deleted the last one.
 */
import { NeardupError } from "../core/errors.js";
import { sourceProblem } from "../engine/responses.js";
import { createIndexWithFields, fieldsMapping, indexSettings } from "../engine/templates.js";
import type { Engine } from "../engine/types.js";
import componentTemplate from "../../mappings/component-template.neardup.json" with { type: "json" };
import type { DedupOptions } from "./options.js";

/** How long setting an index up waits for its primary shards (`Engine.waitForPrimaries`); past it, lookups go on and a shard still missing fails them as before (503). */
const PRIMARIES_WAIT_MS = 30_000;

/** `<alias>-NNNNNN`, one past the highest number behind the alias (rollover's own naming). */
export function nextIndexName(alias: string, behind: readonly { index: string }[]): string {
  let n = 0;
  for (const b of behind) {
    const m = /-(\d+)$/.exec(b.index);
    if (m) n = Math.max(n, Number(m[1]));
  }
  return `${alias}-${String(n + 1).padStart(6, "0")}`;
}

/**
 * Creates the index (neardup mapping plus a text field) when it does not
 * exist; on an existing index, adds any neardup field it lacks (an index made
 * under contract v1 or v2 gets `neardup.lsh`, `lsh_scheme`, `sketch`,
 * `normalized`: an in-place upgrade, older documents keep working) and leaves
 * the user's fields alone. A conflicting neardup mapping is refused by the
 * engine with an error naming the field. With `rollover`, `index` is a write
 * alias: every index behind it gets the mapping, and when none is the write
 * index (a lifecycle policy deleted it), the next `<alias>-NNNNNN` is created.
 */
export async function setUpIndex(engine: Engine, options: Pick<DedupOptions, "index" | "rollover" | "textField" | "clientIndex">): Promise<void> {
  const mappings = structuredClone(componentTemplate.template.mappings) as { properties: Record<string, unknown> };
  const { index, rollover, textField } = options;
  if (rollover) {
    const behind = await engine.aliasIndices(index);
    // A rollover (ILM/ISM, or by hand) makes the next index from the templates alone: without the neardup
    // mapping there, the first write into it maps neardup.* dynamically (as text), and every lookup fails after it.
    const next = nextIndexName(index, behind);
    const rolled = ((await engine.templateMappings(next)) as { properties?: { neardup?: { properties?: Record<string, unknown> } } }).properties?.neardup?.properties;
    if (!rolled?.simhash || !rolled.lsh) {
      throw new NeardupError(
        "INVALID_CONFIG",
        `no index template gives the indices rolled over behind ${index} (such as ${next}) the neardup mapping: add one for ${index}-* that composes the "neardup" component template (mappings/README.md), or every write after a rollover fails`,
        { field: "index" },
      );
    }
    if (behind.length > 0) await engine.putMapping(index, mappings);
    if (!behind.some((b) => b.writeIndex)) {
      if (behind.length === 0 && (await engine.indexExists(index))) {
        throw new NeardupError("INVALID_CONFIG", `${index} is an index, not an alias: with rollover, NEARDUP_INDEX names the write alias`, { field: "index" });
      }
      mappings.properties[textField] = { type: "text" };
      mappings.properties.fields = fieldsMapping(engine.info);
      await engine.createIndex(next, { aliases: { [index]: { is_write_index: true } }, settings: indexSettings(engine.info), mappings });
    }
  } else if (await engine.indexExists(index)) {
    await engine.putMapping(index, mappings); // the user's own fields are left alone
  } else if (options.clientIndex) {
    // The client's index: only the neardup fields; its templates and dynamic mapping make the rest, and
    // whatever made it meanwhile (the engine's auto-create, for a write passed through) gets them too.
    if (!(await engine.createIndex(index, { mappings }))) await engine.putMapping(index, mappings);
  } else {
    mappings.properties[textField] = { type: "text" };
    // `fields`: one field however many keys clients send. Created meanwhile by another writer (the engine's
    // auto-create, for a write passed through the proxy): it still needs the neardup fields.
    if (!(await createIndexWithFields(engine, index, mappings))) {
      delete mappings.properties[textField];
      await engine.putMapping(index, mappings);
    }
  }
  // Made a moment ago, perhaps by another writer (its create then answered "exists" here at once): its shards
  // may not answer a search yet, and the first lookups would fail whole ("all shards failed", audit 12).
  // Best effort: an engine that cannot say (a proxy in front of it refusing the health API) is not waited for.
  await engine.waitForPrimaries(index, PRIMARIES_WAIT_MS).catch(() => false);
  // Candidates' neardup fields, and the texts the edit rule compares, are read from `_source`.
  const problem = sourceProblem(await engine.sourceSettings(index), [textField, "neardup"]);
  if (problem) {
    throw new NeardupError("INVALID_CONFIG", `index ${index} cannot be deduplicated: ${problem}; neardup reads its fields and the texts it compares from _source`, { field: "_source" });
  }
}
