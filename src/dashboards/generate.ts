/**
 * Entry point of `npm run dashboards`: writes the shipped saved objects from
 * the one definition (src/dashboards/definition.ts). A unit test fails when the
 * committed files differ from what this writes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { savedObjects, toNdjson } from "./saved-objects.js";
import type { Product } from "./vega.js";

/** Where each product's file lives, relative to the repository root. */
export const SHIPPED_FILES: Record<Product, string> = {
  kibana: "dashboards/kibana/neardup.ndjson",
  "opensearch-dashboards": "dashboards/opensearch-dashboards/neardup.ndjson",
};

export function shippedContent(product: Product): string {
  return toNdjson(savedObjects(product));
}

function main(root: string): void {
  for (const [product, file] of Object.entries(SHIPPED_FILES) as [Product, string][]) {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, shippedContent(product));
    console.log(`wrote ${file}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.cwd());
