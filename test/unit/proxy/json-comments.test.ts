// Comments in bulk lines are read as the engines read them (their JSON parser allows them): as white space.
import { describe, expect, it } from "vitest";
import { firstKey, withoutComments } from "../../../src/proxy/json-text.js";

describe("withoutComments", () => {
  it("turns comments outside strings into spaces, every other character where it was", () => {
    const cases: [string, string][] = [
      ['{"index":{}} // note', '{"index":{}}        '],
      ['/* c */{"index":{}}', '       {"index":{}}'],
      ['{"message":"a // b /* c */" /* x */}', '{"message":"a // b /* c */"        }'],
      ['{"m":"say \\"//\\" twice"}//', '{"m":"say \\"//\\" twice"}  '],
      ['{"m":"no comment"}', '{"m":"no comment"}'],
      ['{"m":1} /* never ends', '{"m":1} /* never ends'],
      ['{"url":"http://x/y"}', '{"url":"http://x/y"}'],
    ];
    for (const [line, read] of cases) {
      expect(withoutComments(line)).toBe(read);
      expect(withoutComments(line)).toHaveLength(line.length);
    }
    expect(JSON.parse(withoutComments('{"index":{"_id":"1"}} // shipper note'))).toEqual({ index: { _id: "1" } });
  });

  it("reads the first key decoded, and where its value starts", () => {
    expect(firstKey('{"\\u0069ndex":{"_id":"1"}}')).toEqual({ key: "index", valueAt: 14 });
    expect(firstKey('  { "create" : {}}')).toEqual({ key: "create", valueAt: 14 });
    expect(firstKey("[1]")).toBeUndefined();
    expect(firstKey('{"index" {}}')).toBeUndefined();
  });
});
