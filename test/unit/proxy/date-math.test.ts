// Date math in index names, resolved as the engines resolve them (hostile-input audit: `<logs-{now/d}>`
// passed every rule by and was written without dedup). The engines' own answers: test/integration/proxy.test.ts.
import { describe, expect, it } from "vitest";
import { isDateMathName, resolveDateMathName } from "../../../src/proxy/date-math.js";

const now = Date.parse("2026-12-05T21:37:42.123Z"); // a Saturday

describe("resolveDateMathName", () => {
  it.each([
    ["<logs-{now/d}>", "logs-2026.12.05"],
    ["<logs-{now}>", "logs-2026.12.05"],
    ["<logs-{now/M{yyyy.MM}}>", "logs-2026.12"],
    ["<logs-{now/y{yyyy}}>", "logs-2026"],
    ["<logs-{now-1d/d}>", "logs-2026.12.04"],
    ["<logs-{now+1M/M{yyyy.MM.dd}}>", "logs-2027.01.01"],
    ["<logs-{now/w{yyyy.MM.dd}}>", "logs-2026.11.30"],
    ["<logs-{now/h{yyyy.MM.dd.HH}}>", "logs-2026.12.05.21"],
    ["<logs-{now-90m/m{HH_mm_ss}}>", "logs-20_07_00"],
    ["<logs-{now/d{yyyy.MM.dd|+08:00}}>", "logs-2026.12.06"],
    ["<logs-{now/d{yy-MM-dd|-05:00}}>", "logs-26-12-05"],
    ["<logs-{now/d{yyyy.MM.dd|UTC}}>", "logs-2026.12.05"],
    ["<static-\\{x\\}-{now/d}>", "static-{x}-2026.12.05"],
    ["<a-{now/d}-b-{now/M{yyyy.MM}}>", "a-2026.12.05-b-2026.12"],
  ])("%s is %s", (name, resolved) => {
    expect(resolveDateMathName(name, now)).toBe(resolved);
  });

  it.each(["logs-2026", "<>", "<logs-{now/d{EEE}}>", "<logs-{now/d{yyyy|Europe/Paris}}>", "<logs-{then}>", "<logs-{now/d>", "<logs-}>", "<logs-{now/q}>"])(
    "leaves %s alone (not date math, or beyond what it resolves)",
    (name) => {
      expect(resolveDateMathName(name, now)).toBeUndefined();
    },
  );

  it("knows a date-math name", () => {
    expect(isDateMathName("<logs-{now/d}>")).toBe(true);
    expect(isDateMathName("logs")).toBe(false);
  });
});
