import { describe, expect, it } from "vitest";
import type { NeardupError } from "../../../src/core/errors.js";
import { z } from "zod";
import { MAX_FIELDS_DEPTH, MAX_FIELDS_KEY_LENGTH, MAX_FIELDS_KEYS, MAX_FIELDS_VALUE_BYTES, parseDocInput, parseId, parsePolicy, parseTime, parseWith } from "../../../src/service/input.js";
import { resolveDedupOptions } from "../../../src/service/options.js";

function errorOf(f: () => unknown): NeardupError {
  try {
    f();
  } catch (err) {
    return err as NeardupError;
  }
  throw new Error("did not throw");
}

describe("parseDocInput", () => {
  it("accepts a document and generates an id when none is given", () => {
    const doc = parseDocInput({ text: "hello", time: "2026-01-02T03:04:05Z" }, "", 5);
    expect(doc).toMatchObject({ idGiven: false, text: "hello", time: Date.parse("2026-01-02T03:04:05Z") });
    expect(doc.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(parseDocInput({ id: "x", text: "t" }, "", 7)).toMatchObject({ id: "x", idGiven: true, time: 7 });
  });

  it("names the field under the item prefix", () => {
    const err = errorOf(() => parseDocInput({ text: 1 }, "items[4]"));
    expect(err).toMatchObject({ code: "INVALID_INPUT", field: "items[4].text", message: "items[4].text must be a string" });
    expect(errorOf(() => parseDocInput({ text: "t", extra: 1 }, "items[0]"))).toMatchObject({ field: "items[0].extra", message: "items[0].extra is not a known field" });
    expect(errorOf(() => parseDocInput("just a string"))).toMatchObject({ field: "body", message: "body must be a JSON object" });
    expect(errorOf(() => parseDocInput({ id: "x".repeat(513), text: "t" })).message).toBe("id must be at most 512 bytes");
  });

  it("names the type a field must have and the one it got, in plain words (zod's own wording leaked through)", () => {
    expect(errorOf(() => parseDocInput({ id: 7, text: "t" }, "items[2]", 1))).toMatchObject({ code: "INVALID_INPUT", field: "items[2].id", message: "items[2].id must be a string, got a number" });
    expect(errorOf(() => parseDocInput({ text: ["t"] }, "", 1))).toMatchObject({ field: "text", message: "text must be a string" });
    expect(errorOf(() => parseDocInput({ text: "t", fields: 5 }, "", 1))).toMatchObject({ field: "fields", message: "fields must be an object, got a number" });
    expect(errorOf(() => parseDocInput({ text: "t", fields: null }, "", 1))).toMatchObject({ field: "fields", message: "fields must be an object, got null" });
    expect(errorOf(() => parseDocInput({ id: "x" }, "", 1))).toMatchObject({ field: "text", message: "text is required" });
    for (const e of [errorOf(() => parseDocInput({ id: 7, text: "t" }, "", 1)), errorOf(() => parseDocInput({ text: "t", fields: 5 }, "", 1))]) expect(e.message).not.toMatch(/Invalid input|received|record/);
  });

  it("says a number's bound in plain words, with the value sent", () => {
    const schema = z.object({ limit: z.number().int().min(1).max(100).optional(), share: z.number().gt(0).lt(1).optional(), tags: z.array(z.string()).max(2).optional() }).strict();
    expect(errorOf(() => parseWith(schema, { limit: -1 }))).toMatchObject({ code: "INVALID_INPUT", field: "limit", message: "limit must be at least 1, got -1" });
    expect(errorOf(() => parseWith(schema, { limit: 101 }))).toMatchObject({ field: "limit", message: "limit must be at most 100, got 101" });
    expect(errorOf(() => parseWith(schema, { share: 1 }))).toMatchObject({ field: "share", message: "share must be less than 1, got 1" });
    expect(errorOf(() => parseWith(schema, { share: 0 }))).toMatchObject({ field: "share", message: "share must be greater than 0, got 0" });
    expect(errorOf(() => parseWith(schema, { tags: ["a", "b", "c"] }))).toMatchObject({ field: "tags", message: "tags must have at most 2 items" });
  });

  it("says a number with a fraction is not an integer, with the value sent (audit 22a, F7: 'radius must be an int, got a number')", () => {
    const schema = z.object({ radius: z.number().int().optional() }).strict();
    expect(errorOf(() => parseWith(schema, { radius: 1.5 }))).toMatchObject({ code: "INVALID_INPUT", field: "radius", message: "radius must be an integer, got 1.5" });
    expect(errorOf(() => parseWith(schema, { radius: "3" })).message).toBe("radius must be a number, got a string");
  });

  it("refuses an unparseable or out-of-range time", () => {
    expect(errorOf(() => parseTime("soon", "time", 0)).message).toBe('time must be an ISO-8601 date or epoch milliseconds, got "soon"');
    expect(errorOf(() => parseTime(-5, "time", 0)).field).toBe("time");
    // Epoch milliseconds go as a JSON number: a string of digits is refused, saying so (audit 22a, F5).
    expect(errorOf(() => parseTime("1796640000000", "time", 0)).message).toBe('time must be an ISO-8601 date or epoch milliseconds, got "1796640000000" (epoch milliseconds are sent as a JSON number, not a string)');
    expect(parseTime(undefined, "time", 42)).toBe(42);
  });

  it("parses policies", () => {
    expect(parsePolicy(undefined, "skip")).toBe("skip");
    expect(parsePolicy("reject", "mark")).toBe("reject");
    expect(errorOf(() => parsePolicy(["mark"], "mark")).field).toBe("policy");
  });
});

describe("resolveDedupOptions", () => {
  it("spreads over documented defaults and refuses unknown options and bad values by name", () => {
    expect(resolveDedupOptions()).toMatchObject({ index: "neardup-documents", textField: "text", windowMs: 172_800_000, policy: "mark" });
    expect(errorOf(() => resolveDedupOptions({ windw: 1 } as never)).message).toBe("unknown dedup option windw");
    expect(errorOf(() => resolveDedupOptions({ maxCandidates: 0 })).field).toBe("maxCandidates");
    expect(errorOf(() => resolveDedupOptions({ textField: "neardup.text" })).field).toBe("textField");
    expect(errorOf(() => resolveDedupOptions({ index: "Bad" })).field).toBe("index");
    expect(resolveDedupOptions().lshKeyBudget).toBe(200);
    expect(errorOf(() => resolveDedupOptions({ lshKeyBudget: -1 })).field).toBe("lshKeyBudget");
    expect(errorOf(() => resolveDedupOptions({ lshKeyBudget: 1.5 })).message).toBe("lshKeyBudget must be a non-negative integer, got 1.5");
    expect(errorOf(() => resolveDedupOptions({ mirrorDocs: -1 })).field).toBe("mirrorDocs");
    expect(errorOf(() => resolveDedupOptions({ mirrorDocs: 2.5 })).message).toBe("mirrorDocs must be a non-negative integer, got 2.5");
  });
});

describe("fields (issue 11): the client's data, checked before the engine sees it", () => {
  const nested = (levels: number): Record<string, unknown> => {
    let v: Record<string, unknown> = { leaf: 1 };
    for (let i = levels - 1; i >= 1; i--) v = { [`l${i}`]: v };
    return v;
  };

  it(`accepts ${MAX_FIELDS_DEPTH} levels and refuses ${MAX_FIELDS_DEPTH + 1}, naming the path`, () => {
    expect(parseDocInput({ text: "t", fields: nested(MAX_FIELDS_DEPTH) }).fields).toEqual(nested(MAX_FIELDS_DEPTH));
    const err = errorOf(() => parseDocInput({ text: "t", fields: nested(MAX_FIELDS_DEPTH + 1) }, "items[2]"));
    expect(err).toMatchObject({ code: "INVALID_INPUT", field: "items[2].fields.l1.l2.l3.l4.l5.l6.l7.l8" });
    expect(err.message).toBe(`items[2].fields.l1.l2.l3.l4.l5.l6.l7.l8 is nested deeper than ${MAX_FIELDS_DEPTH} levels`);
    // arrays are not levels, but objects inside them are
    expect(errorOf(() => parseDocInput({ text: "t", fields: { a: [{ b: nested(MAX_FIELDS_DEPTH) }] } })).field).toBe("fields.a[0].b.l1.l2.l3.l4.l5.l6");
  });

  it(`refuses arrays nested ${MAX_FIELDS_DEPTH + 1} deep inside each other with a 400 naming the path (thousands deep overflowed the stack: a 500)`, () => {
    const arrays = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    expect(parseDocInput({ text: "t", fields: { a: arrays(MAX_FIELDS_DEPTH) } }).fields).toEqual({ a: arrays(MAX_FIELDS_DEPTH) });
    const err = errorOf(() => parseDocInput({ text: "t", fields: { a: arrays(MAX_FIELDS_DEPTH + 1) } }));
    expect(err).toMatchObject({ code: "INVALID_INPUT", field: `fields.a${"[0]".repeat(MAX_FIELDS_DEPTH)}` });
    expect(err.message).toContain(`holds arrays nested deeper than ${MAX_FIELDS_DEPTH} levels`);
    expect(errorOf(() => parseDocInput({ text: "t", fields: { a: arrays(100_000) } })).code).toBe("INVALID_INPUT");
  });

  it("refuses a number JSON parsed as Infinity (1e309), naming the path (it was stored as null)", () => {
    const raw = JSON.parse('{"text":"t","fields":{"a":{"b":[1,1e309]}}}') as unknown;
    const err = errorOf(() => parseDocInput(raw));
    expect(err).toMatchObject({ code: "INVALID_INPUT", field: "fields.a.b[1]" });
    expect(err.message).toContain("too large to store");
    expect(parseDocInput({ text: "t", fields: { a: 1.7e308, b: -0.5 } }).fields).toEqual({ a: 1.7e308, b: -0.5 });
  });

  it.each([
    [{ "": 1 }, "fields", "fields has an empty key"],
    [{ a: { "": 1 } }, "fields.a", "fields.a has an empty key"],
    [{ "...": 1 }, "fields....", 'fields.... has a key with an empty path segment ("...")'],
    [{ "a..b": 1 }, "fields.a..b", 'fields.a..b has a key with an empty path segment ("a..b")'],
    [{ "a.": 1 }, "fields.a.", 'fields.a. has a key with an empty path segment ("a.")'],
    [{ _source: 1 }, "fields._source", 'fields._source has a key starting with an underscore ("_source")'],
    [{ ["k".repeat(MAX_FIELDS_KEY_LENGTH + 1)]: 1 }, `fields.${"k".repeat(MAX_FIELDS_KEY_LENGTH + 1)}`, `has a key longer than ${MAX_FIELDS_KEY_LENGTH} characters`],
    [{ "k\ud800": 1 }, "fields.k\ud800", "has a key that is not well-formed Unicode (a lone surrogate U+D800 at index 1)"],
    [{ a: ["ok", "x\udc00"] }, "fields.a[1]", "fields.a[1] must be well-formed Unicode (a lone surrogate U+DC00 at index 1)"],
    [{ a: "é".repeat(MAX_FIELDS_VALUE_BYTES / 2 + 1) }, "fields.a", `fields.a is longer than ${MAX_FIELDS_VALUE_BYTES} bytes`],
  ])("refuses %j naming %s", (fields, field, message) => {
    const err = errorOf(() => parseDocInput({ text: "t", fields }));
    expect(err).toMatchObject({ code: "INVALID_INPUT", field });
    expect(err.message).toContain(message);
  });

  it("refuses __proto__ as a key of fields at any level, as JSON.parse gives it (at the top it was dropped without a word)", () => {
    for (const [body, field] of [
      ['{"text":"t","fields":{"__proto__":{"a":1}}}', "fields.__proto__"],
      ['{"text":"t","fields":{"b":{"__proto__":1}}}', "fields.b.__proto__"],
    ] as const) {
      const err = errorOf(() => parseDocInput(JSON.parse(body)));
      expect(err).toMatchObject({ code: "INVALID_INPUT", field, message: expect.stringContaining("starting with an underscore") });
    }
  });

  it(`accepts keys with dots, unicode and ${MAX_FIELDS_KEYS} keys; refuses one more`, () => {
    expect(parseDocInput({ text: "t", fields: { "a.b": 1, 名字: "值", "x-y z": null, n: [1, true, { c: "d" }] } }).fields).toBeDefined();
    const many = (n: number) => ({ g: Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [`k${i}`, i])) });
    expect(parseDocInput({ text: "t", fields: many(MAX_FIELDS_KEYS) }).fields).toBeDefined();
    const err = errorOf(() => parseDocInput({ text: "t", fields: many(MAX_FIELDS_KEYS + 1) }, "items[0]"));
    expect(err).toMatchObject({ field: "items[0].fields", message: `items[0].fields has more than ${MAX_FIELDS_KEYS} keys` });
  });
});

describe("ids must be well-formed Unicode (issue 11: ls-\\ud800 and ls-\\udbff became one document)", () => {
  it("refuses a lone surrogate in a body id, naming the field and the code unit", () => {
    expect(errorOf(() => parseDocInput({ id: "ls-\ud800", text: "t" }, "items[1]"))).toMatchObject({
      code: "INVALID_INPUT",
      field: "items[1].id",
      message: "items[1].id must be well-formed Unicode (a lone surrogate U+D800 at index 3)",
    });
    expect(errorOf(() => parseDocInput({ id: "\udbff-x", text: "t" })).message).toBe("id must be well-formed Unicode (a lone surrogate U+DBFF at index 0)");
    expect(parseDocInput({ id: "emoji-😀", text: "t" }).id).toBe("emoji-😀");
  });

  it("refuses one in a path id", () => {
    expect(errorOf(() => parseId("a\udfffb"))).toMatchObject({ field: "id", message: "id must be well-formed Unicode (a lone surrogate U+DFFF at index 1)" });
    expect(parseId("ok-😀")).toBe("ok-😀");
  });
});
