import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineToWrite } from "../../../src/proxy/ndjson.js";
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

describe("lineToWrite", () => {
  it("takes out the client's own neardup member and keeps every other member's text as sent, repeated keys included", () => {
    const line = '{"a":1,"neardup":{"x":[1,2]},"message":"m","message":"n","big":9007199254740993,"neardup":2}';
    const source = JSON.parse(line) as Record<string, unknown>;
    const out = lineToWrite(line, source);
    expect(out).toBe('{"a":1,"message":"m","message":"n","big":9007199254740993,"neardup":2}');
    // Written, the second neardup repeats the service's: the engine refuses the line, as it refuses the client's.
    expect(withNeardup(out, { status: "original" })).toBe('{"neardup":{"status":"original"},"a":1,"message":"m","message":"n","big":9007199254740993,"neardup":2}');
  });

  it("leaves a line without neardup as sent, byte order mark and spacing included", () => {
    const line = '\ufeff { "message" : "m" , "b":1.0 } ';
    expect(lineToWrite(line, JSON.parse(line.slice(1)) as Record<string, unknown>)).toBe(line);
  });

  it("parses, with neardup added, to the source with neardup replaced, for any object with a neardup key", () => {
    const source = fc.dictionary(fc.string().filter((k) => k !== "__proto__"), fc.jsonValue());
    fc.assert(
      fc.property(source, fc.jsonValue(), fc.jsonValue(), fc.boolean(), (object, own, neardup, spaced) => {
        const withOwn = { ...object, neardup: own };
        const line = JSON.stringify(withOwn, null, spaced ? 1 : undefined).replace(/\n/g, " ");
        const parsed = JSON.parse(withNeardup(lineToWrite(line, withOwn), neardup)) as Record<string, unknown>;
        expect(parsed).toEqual({ ...(JSON.parse(line) as Record<string, unknown>), neardup: JSON.parse(JSON.stringify(neardup)) });
      }),
    );
  });
});
