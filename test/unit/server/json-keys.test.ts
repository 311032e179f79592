// Keys repeated within one object of a JSON text are found, with where they are (audit 18, F5).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findDuplicateKey } from "../../../src/server/json-keys.js";

describe("repeated JSON keys", () => {
  it("names the first key repeated in its own object, and nothing else", () => {
    expect(findDuplicateKey('{"id":"a","id":"b","text":"x"}')).toBe("id");
    expect(findDuplicateKey('{"text":"x","fields":{"a":1,"b":{"c":2,"c":3}}}')).toBe("fields.b.c");
    expect(findDuplicateKey('[{"a":1},{"a":2,"b":[{"x":1},{"y":1,"y":2}]}]')).toBe("[1].b[1].y");
    expect(findDuplicateKey('{"a b":1,"a b":2}', "items[3]")).toBe('items[3]["a b"]');
    expect(findDuplicateKey('{"a":1,"\\u0061":2}')).toBe("a"); // one key, spelled two ways
    // The same key in sibling or nested objects, and key-like strings among values, are not repeats.
    expect(findDuplicateKey('{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":"a","d":["a","a"]}')).toBeUndefined();
    expect(findDuplicateKey('{"a":"x\\"a\\":1","b":"\\"a\\""}')).toBeUndefined();
    expect(findDuplicateKey('{"a":1,"a')).toBeUndefined(); // not JSON: JSON.parse says why
  });

  it("finds nothing in what JSON.stringify writes, and finds a key written again in it", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), fc.jsonValue(), (object, value) => {
        const text = JSON.stringify(object);
        expect(findDuplicateKey(text)).toBeUndefined();
        const key = Object.keys(object)[0]!;
        const repeated = `${text.slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value)}}`;
        expect(findDuplicateKey(repeated)).toBe(/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(key) ? key : `[${JSON.stringify(key)}]`);
      }),
      { numRuns: 500 },
    );
  });
});
