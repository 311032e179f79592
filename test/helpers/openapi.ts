import { Ajv } from "ajv";
import { expect } from "vitest";
import { openApiDocument } from "../../src/server/openapi.js";

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema({ components: openApiDocument.components }, "openapi");

type SchemaName = keyof typeof openApiDocument.components.schemas;

/** Asserts a response body matches the OpenAPI schema of that name (the served document). */
export function expectSchema(body: unknown, name: SchemaName): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  const ok = validate(body);
  expect(ok, `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`).toBe(true);
}

/** The status codes the OpenAPI document lists for a path and method. */
export function documentedStatuses(path: string, method: string): string[] {
  const item = (openApiDocument.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)[path]?.[method];
  return Object.keys(item?.responses ?? {});
}
