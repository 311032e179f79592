/** Interval parsing and choice for /v1/stats (issue 13). */
import { describe, expect, it } from "vitest";
import { MAX_BUCKETS, bucketCount, chooseInterval, intervalMs } from "../../../src/service/stats.js";

const H = 3_600_000;

describe("stats intervals", () => {
  it("parses a whole number and a unit", () => {
    expect(intervalMs("90s")).toBe(90_000);
    expect(intervalMs("1h")).toBe(H);
    expect(intervalMs("2d")).toBe(48 * H);
    expect(intervalMs("250ms")).toBe(250);
  });

  it.each(["", "1", "h", "0h", "1.5h", "1w", "1M", "-1h", " 1h", "1000000h"])("refuses %j naming the parameter", (raw) => {
    expect(() => intervalMs(raw)).toThrow(expect.objectContaining({ code: "INVALID_INPUT", field: "interval" }));
  });

  it("picks the smallest listed interval giving at most 60 buckets", () => {
    expect(chooseInterval(0, 48 * H, undefined)).toBe("1h");
    expect(chooseInterval(0, 24 * H, undefined)).toBe("30m");
    expect(chooseInterval(0, 7 * 24 * H, undefined)).toBe("3h");
    expect(chooseInterval(0, 10 * 60_000, undefined)).toBe("1m");
  });

  it("keeps a given interval unless it makes more than the most buckets", () => {
    expect(chooseInterval(0, 48 * H, "5m")).toBe("5m");
    expect(() => chooseInterval(0, MAX_BUCKETS * 60_000, "1m")).toThrow(expect.objectContaining({ field: "interval", message: expect.stringMatching(/gives 2001 buckets over the range; the most is 2000/) }));
  });

  it("counts the buckets of a range as the histogram makes them, on the epoch's multiples of the interval, `to` included (stats audit: 2,000 hourly buckets were called 2,001, and the automatic interval gave 61)", () => {
    expect(bucketCount(0, 2000 * H - 1, H)).toBe(2000);
    expect(bucketCount(0, 2000 * H, H)).toBe(2001);
    expect(bucketCount(15 * H, 35 * H + 30 * 60_000, 10 * H)).toBe(3); // [10h, 20h), [20h, 30h), [30h, 40h)
    expect(bucketCount(15 * H, 25 * H, 10 * H)).toBe(2); // 10 hours, over two buckets
    expect(bucketCount(H / 2, 2000 * H - 1, H)).toBe(2000);
    expect(chooseInterval(0, 2000 * H - 1, "1h")).toBe("1h");
    expect(() => chooseInterval(0, 2000 * H, "1h")).toThrow(/gives 2001 buckets/);
    expect(chooseInterval(0, 60 * H, undefined)).toBe("3h"); // 1h would give 61
    expect(chooseInterval(0, 60 * H - 1, undefined)).toBe("1h");
  });
});
