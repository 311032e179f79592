// Line parsing and flag parsing, without a fingerprinter.
import { describe, expect, it } from "vitest";
import { detectFormat, parseLine } from "../../../src/cli/input.js";
import type { FieldOptions } from "../../../src/cli/input.js";
import { parseDuration, verdictWith } from "../../../src/cli/options.js";

const fields: FieldOptions = { textField: "body.text", idField: "_id", timeField: "ts", timeUnit: "s" };

describe("parseLine", () => {
  it("reads nested text, numeric ids and epoch-second times", () => {
    expect(parseLine('{"_id": 7, "ts": 1700000000, "body": {"text": "hi"}}', 3, "jsonl", fields)).toEqual({
      kind: "doc",
      doc: { id: "7", text: "hi", time: 1_700_000_000_000 },
    });
  });
  it("reads ISO times", () => {
    const p = parseLine('{"_id": "a", "ts": "2024-05-01T00:00:00Z", "body.text": "x"}', 1, "jsonl", fields);
    expect(p).toEqual({ kind: "doc", doc: { id: "a", text: "x", time: Date.parse("2024-05-01T00:00:00Z") } });
  });
  it("names the field and the value it refused", () => {
    expect(parseLine('{"_id": "a", "ts": "soon", "body": {"text": "x"}}', 1, "jsonl", fields)).toEqual({
      kind: "bad",
      message: 'field "ts" must be an ISO 8601 date or an epoch number, got "soon"',
    });
    expect(parseLine('{"_id": null, "body": {"text": "x"}}', 1, "jsonl", fields)).toMatchObject({ kind: "bad", message: 'field "_id" must be a non-empty string or a number, got null' });
    expect(parseLine("[1,2]", 1, "jsonl", fields)).toMatchObject({ kind: "bad", message: "expected a JSON object, got [1,2]" });
  });
  it("plain text: the line is the document, the line number its id", () => {
    expect(parseLine('{"looks": "like json"}', 9, "text", fields)).toEqual({ kind: "doc", doc: { id: "9", text: '{"looks": "like json"}', time: undefined } });
    expect(parseLine("   ", 9, "text", fields)).toEqual({ kind: "blank" });
  });
  it("detects the format from the first line", () => {
    expect(detectFormat('  {"text": "a"}')).toBe("jsonl");
    expect(detectFormat("just words")).toBe("text");
  });
});

describe("flags", () => {
  it("parses durations", () => {
    expect(parseDuration("2d")).toBe(172_800_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(() => parseDuration("2 days")).toThrow('expected a duration such as 45s, 30m, 12h or 2d, got "2 days"');
  });
  it("threshold overrides apply to every bucket", () => {
    const v = verdictWith({ minCosine: 0.95 });
    expect(v.buckets.every((b) => b.minCosine === 0.95)).toBe(true);
  });
});
