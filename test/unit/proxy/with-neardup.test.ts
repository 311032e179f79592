import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withNeardup } from "../../../src/proxy/write-through.js";

describe("withNeardup", () => {
  it("keeps every byte of the client's source and adds neardup as the first key", () => {
    const line = '{"message":"a","big":12345678901234567890,"f":1.0,"e":1e309,"s":"\\u00e9"}';
    const out = withNeardup(line, { status: "original" });
    expect(out).toBe(`{"neardup":{"status":"original"},${line.slice(1)}`);
  });

  it("handles leading white space and an empty object", () => {
    expect(JSON.parse(withNeardup('  { }', { a: 1 }))).toEqual({ neardup: { a: 1 } });
    expect(JSON.parse(withNeardup(' {"x" : [1, {"y": 2}] } \r', { a: 1 }))).toEqual({ neardup: { a: 1 }, x: [1, { y: 2 }] });
  });

  it("parses to the source with neardup set, for any JSON object without a neardup key", () => {
    const source = fc.dictionary(fc.string().filter((k) => k !== "neardup" && k !== "__proto__"), fc.jsonValue());
    fc.assert(
      fc.property(source, fc.jsonValue(), fc.boolean(), (object, neardup, spaced) => {
        const line = JSON.stringify(object, null, spaced ? 1 : undefined).replace(/\n/g, " ");
        const parsed = JSON.parse(withNeardup(line, neardup)) as Record<string, unknown>;
        expect(parsed).toEqual({ ...JSON.parse(line), neardup: JSON.parse(JSON.stringify(neardup)) });
      }),
    );
  });
});
