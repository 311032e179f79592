// An index whose `_source` leaves out what neardup reads (hostile-input audit: near-duplicates got a 502, or
// an exact copy was called an original). `sourceProblem` says why such an index cannot be deduplicated.
import { describe, expect, it } from "vitest";
import { sourceProblem, toSourceSettings } from "../../../src/engine/responses.js";

const paths = ["message", "neardup"];
const on = { enabled: true, includes: [], excludes: [] };

describe("sourceProblem", () => {
  it("accepts a stored source that keeps the text and the neardup fields", () => {
    expect(sourceProblem([on], paths)).toBeUndefined();
    expect(sourceProblem([{ ...on, excludes: ["raw", "msg*x", "message.extra"] }], paths)).toBeUndefined();
    expect(sourceProblem([{ ...on, includes: ["mess*", "neardup.*"] }], paths)).toBeUndefined();
    expect(sourceProblem([], paths)).toBeUndefined();
  });

  it.each([
    [{ ...on, enabled: false }, /stores no _source/],
    [{ ...on, excludes: ["message"] }, /leaves out message/],
    [{ ...on, excludes: ["mess*"] }, /leaves out message/],
    [{ ...on, excludes: ["*"] }, /leaves out message/],
    [{ ...on, excludes: ["neardup"] }, /leaves out neardup/],
    [{ ...on, includes: ["host", "neardup"] }, /keeps only host, neardup .*not message/],
  ])("names what %j leaves out", (settings, why) => {
    expect(sourceProblem([on, settings], paths)).toMatch(why);
  });

  it("reads a dotted text field under an object the source leaves out", () => {
    expect(sourceProblem([{ ...on, excludes: ["log"] }], ["log.message"])).toMatch(/leaves out log\.message/);
    expect(sourceProblem([{ ...on, includes: ["log"] }], ["log.message"])).toBeUndefined();
  });

  it("reads the engines' mapping answer", () => {
    const answer = { a: { mappings: { _source: { enabled: false } } }, b: { mappings: { _source: { excludes: ["x"], includes: "y" } } }, c: { mappings: {} } };
    expect(toSourceSettings(answer)).toEqual([
      { enabled: false, includes: [], excludes: [] },
      { enabled: true, includes: ["y"], excludes: ["x"] },
      { enabled: true, includes: [], excludes: [] },
    ]);
    expect(toSourceSettings(undefined)).toEqual([]);
  });
});
