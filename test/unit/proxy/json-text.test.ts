import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { objectMembers, objectText } from "../../../src/proxy/json-text.js";

describe("objectMembers", () => {
  it("gives each member's text as sent: numbers keep every digit", () => {
    const text = ' { "_id" : 9007199254740993,"r":1.0 , "s":"a\\"},b", "o":{"x":[1,{"y":"]"}]},"n":null}';
    expect(objectMembers(text, 0)).toEqual([
      { key: "_id", raw: "9007199254740993" },
      { key: "r", raw: "1.0" },
      { key: "s", raw: '"a\\"},b"' },
      { key: "o", raw: '{"x":[1,{"y":"]"}]}' },
      { key: "n", raw: "null" },
    ]);
    expect(objectMembers("{}", 0)).toEqual([]);
  });

  it("objectText of the members parses to the object, for any JSON object however spaced", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string().filter((k) => k !== "__proto__"), fc.jsonValue()), fc.boolean(), (object, spaced) => {
        const text = JSON.stringify(object, null, spaced ? 2 : undefined);
        expect(JSON.parse(objectText(objectMembers(text, 0)))).toEqual(JSON.parse(text));
      }),
    );
  });
});
