import { describe, expect, it } from "vitest";
import type { NeardupError } from "../../../src/core/errors.js";
import { parseDocInput, parsePolicy, parseTime } from "../../../src/service/input.js";
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

  it("refuses an unparseable or out-of-range time", () => {
    expect(errorOf(() => parseTime("soon", "time", 0)).message).toBe('time must be an ISO-8601 date or epoch milliseconds, got "soon"');
    expect(errorOf(() => parseTime(-5, "time", 0)).field).toBe("time");
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
  });
});
