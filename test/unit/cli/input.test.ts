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
  it("issue 14: reads `id` and a common time field by default", () => {
    const auto: FieldOptions = { textField: "text", timeUnit: "ms" };
    expect(parseLine('{"id": "doc-1", "created_at": "2024-05-01T00:00:00Z", "text": "x"}', 4, "jsonl", auto)).toEqual({
      kind: "doc",
      doc: { id: "doc-1", text: "x", time: Date.parse("2024-05-01T00:00:00Z") },
    });
    // The first name present wins: time, timestamp, @timestamp, date, created_at.
    expect(parseLine('{"id": 5, "date": 1000, "@timestamp": 2000, "text": "x"}', 4, "jsonl", auto)).toEqual({ kind: "doc", doc: { id: "5", text: "x", time: 2000 } });
    // Neither present: the line number and no time.
    expect(parseLine('{"text": "x"}', 4, "jsonl", auto)).toEqual({ kind: "doc", doc: { id: "4", text: "x", time: undefined } });
    // A default field that is there but unusable is reported, by name.
    expect(parseLine('{"id": "", "text": "x"}', 4, "jsonl", auto)).toMatchObject({ kind: "bad", message: 'field "id" must be a non-empty string or a number, got ""' });
    expect(parseLine('{"timestamp": "soon", "text": "x"}', 4, "jsonl", auto)).toMatchObject({ kind: "bad", message: 'field "timestamp" must be an ISO 8601 date or an epoch number, got "soon"' });
  });
  it("flags override the defaults; false turns a default off", () => {
    const off: FieldOptions = { textField: "text", idField: false, timeField: false, timeUnit: "ms" };
    expect(parseLine('{"id": "doc-1", "time": 5, "text": "x"}', 4, "jsonl", off)).toEqual({ kind: "doc", doc: { id: "4", text: "x", time: undefined } });
    const named: FieldOptions = { textField: "text", idField: "key", timeField: "when", timeUnit: "s" };
    expect(parseLine('{"id": "no", "key": "yes", "time": 5, "when": 7, "text": "x"}', 4, "jsonl", named)).toEqual({ kind: "doc", doc: { id: "yes", text: "x", time: 7000 } });
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
