/** Issue 15: times are strict RFC 3339 or epoch milliseconds, and not far in the future. */
import { describe, expect, it } from "vitest";
import { parseTime } from "../../../src/service/input.js";

const now = Date.parse("2026-12-02T12:00:00Z");
const skew = 300_000;
const parse = (v: string | number) => parseTime(v, "time", now, skew);

describe("parseTime (issue 15)", () => {
  it.each(["1", "0", "2024-02-30", "2023-02-29T00:00:00Z", "2024-13-01", "2024-01-01T24:00:00Z", "2024-01-01T10:60:00Z", "2024-01-01 10:00:00", "2024-01-01T10:00:00", "+002024-01-01T00:00:00Z", "Mon, 01 Jan 2024 00:00:00 GMT", "2024-01-01T00:00:00+24:00", " 2024-01-01"])(
    "refuses %j",
    (v) => {
      expect(() => parse(v)).toThrow(/^time must be an ISO-8601 date or epoch milliseconds/);
    },
  );
  it("refuses fractional, negative and non-finite epoch numbers", () => {
    for (const v of [1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => parse(v)).toThrow(/epoch milliseconds/);
  });
  it("refuses a time before 1970 saying so (hostile-input audit: a 1960 date was called not a date)", () => {
    for (const v of [-1, "1960-01-01T00:00:00Z", "1969-12-31"]) expect(() => parse(v)).toThrow(/^time must be 1970-01-01 or later \(neardup stores no earlier time\), got /);
  });
  it("refuses year 9999 and anything beyond the clock skew, naming the setting", () => {
    expect(() => parse("9999-01-01T00:00:00Z")).toThrow(/in the future; at most 300 s of clock skew is allowed \(NEARDUP_TIME_SKEW_MS\)/);
    expect(() => parse(now + skew + 1)).toThrow(/in the future/);
    expect(parse(now + skew)).toBe(now + skew);
  });
  it("accepts RFC 3339 date-times with fractions and offsets, full-dates and epoch ms", () => {
    expect(parse("2024-02-29T23:59:59.123Z")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 123));
    expect(parse("2024-02-29t01:00:00+01:30")).toBe(Date.UTC(2024, 1, 28, 23, 30, 0));
    expect(parse("2024-02-29")).toBe(Date.UTC(2024, 1, 29));
    expect(parse(0)).toBe(0);
    expect(parse(1_700_000_000_000)).toBe(1_700_000_000_000);
  });
  it("refuses times before 1970 (epoch ms must be >= 0)", () => {
    expect(() => parse("1969-12-31T23:59:59Z")).toThrow(/1970-01-01 or later/);
  });
});
