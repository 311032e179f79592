import { describe, expect, it } from "vitest";
import { arrivalId, timeOf } from "../../../src/proxy/bulk.js";
import { MAX_SOURCE_DEPTH, metaText, nestsDeeperThan, PARSE_SLICE_LINES, parseBulk, parseBulkInSlices, parseSource } from "../../../src/proxy/ndjson.js";
import { parseIndexRules, ruleFor } from "../../../src/proxy/rules.js";

describe("parseIndexRules", () => {
  it("reads pattern:field[:policy] rules; the first match wins; * does not reach hidden indices", () => {
    const rules = parseIndexRules("logs-*:message, articles:body:reject ,*:text");
    expect(rules.map((r) => [r.pattern, r.textField, r.policy])).toEqual([
      ["logs-*", "message", undefined],
      ["articles", "body", "reject"],
      ["*", "text", undefined],
    ]);
    expect(ruleFor(rules, "logs-2026.12.02")?.textField).toBe("message");
    expect(ruleFor(rules, "articles")?.policy).toBe("reject");
    expect(ruleFor(rules, "articles-old")?.pattern).toBe("*");
    expect(ruleFor(rules, ".kibana")).toBeUndefined();
    expect(ruleFor(parseIndexRules("logs.app-*:m"), "logsXapp-1")).toBeUndefined(); // "." is literal
    expect(parseIndexRules("")).toEqual([]);
  });

  it.each([
    ["logs-*", "pattern:field"],
    ["logs-*:message:drop", 'policy "drop"'],
    ["logs-*:log.message", "top-level"],
    ["logs-*:neardup", "outside neardup"],
    ["Logs:message", "invalid index pattern"],
    ["a:b:mark:x", "pattern:field"],
  ])("refuses %s, naming the setting and the problem", (spec, problem) => {
    expect(() => parseIndexRules(spec)).toThrow(expect.objectContaining({ code: "INVALID_CONFIG", field: "NEARDUP_PROXY_INDICES", message: expect.stringContaining(problem) }));
  });
});

describe("parseBulk", () => {
  const body = (...lines: string[]) => lines.join("\n") + "\n";

  it("pairs actions with their source lines, keeps them raw, and takes the index from the path when the action has none", () => {
    const parsed = parseBulk(body('{"index":{"_id":"1"}}', '{"message":"a"}', '{"delete":{"_index":"x","_id":"2"}}', "", '{"update":{"_id":"3"}}', '{"doc":{"n":1}}', '{"create":{}}', "{ not json"), "logs");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.items.map((i) => [i.op, i.index, i.sourceLine])).toEqual([
      ["index", "logs", '{"message":"a"}'],
      ["delete", "x", undefined],
      ["update", "logs", '{"doc":{"n":1}}'],
      ["create", "logs", "{ not json"],
    ]);
    expect(parseSource(parsed.items[0]!)).toEqual({ message: "a" });
    expect(parseSource(parsed.items[3]!)).toBeUndefined();
  });

  it("reads an action line as the engines do: the first key is the action, later keys are ignored, a byte order mark is skipped", () => {
    const bom = "\ufeff";
    const parsed = parseBulk(
      body(`${bom}{"index":{"_id":"1"}}`, `${bom}{"message":"a"}`, '{"index":{"_id":"2"},"delete":{"_id":"9"}}', '{"message":"b"}', '{"delete":{"_id":"3"},"index":{}}', '{"create":{"_id":"4"},"x":1}', '{"message":"c"}'),
      "logs",
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.items.map((i) => [i.op, i.id])).toEqual([
      ["index", "1"],
      ["index", "2"],
      ["delete", "3"],
      ["create", "4"],
    ]);
    // Before, each of these sent the whole body to the engine as it was, and its documents were written without dedup.
    expect(parseSource(parsed.items[0]!)).toEqual({ message: "a" });
  });

  it("keeps the action's metadata as sent: an _id past 2^53 keeps its digits, as the engines read it (two such ids were one document)", () => {
    const parsed = parseBulk(body('{"index":{"_index":"a","_id":9007199254740993, "routing" : 9007199254740995,"version":1.0}}', "{}", '{"index":{"_id":9007199254740992}}', "{}", '{"delete":{"_id":"q\\"1"}}'), "logs");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.items.map((i) => [i.id, metaText(i)])).toEqual([
      ["9007199254740993", '{"routing":9007199254740995,"version":1.0}'],
      ["9007199254740992", "{}"],
      ['q"1', "{}"],
    ]);
  });

  it("reads the first of a repeated action key, as OpenSearch does, for the index and the metadata alike (they came from different objects)", () => {
    const parsed = parseBulk(body('{"index":{"_index":"logs","_id":"1","routing":"r"},"index":{"_index":"other"}}', "{}"), undefined);
    expect(parsed.ok && parsed.items.map((i) => [i.index, i.id, metaText(i)])).toEqual([["logs", "1", '{"routing":"r"}']]);
    // With a byte order mark, as the engines skip it.
    const bom = parseBulk(body('\ufeff{"index" : {"routing":7,"_id":"b"}}', "{}"), "logs");
    expect(bom.ok && bom.items.map((i) => [i.id, metaText(i)])).toEqual([["b", '{"routing":7}']]);
  });

  it("reads a number's or a boolean's _id and _index as their text, as the engines store them (hostile-input audit: forwarding the request as sent wrote every other item without dedup)", () => {
    const parsed = parseBulk(
      body('{"index":{"_index":"logs","_id":1e400}}', "{}", '{"index":{"_index":"logs","_id":true}}', "{}", '{"delete":{"_index":5,"_id":false}}', '{"update":{"_index":true,"_id":1.50}}', "{}", '{"index":{"_index":"logs","_id":null}}', "{}"),
      undefined,
    );
    expect(parsed.ok && parsed.items.map((i) => [i.op, i.index, i.id])).toEqual([
      ["index", "logs", "1e400"],
      ["index", "logs", "true"],
      ["delete", "5", "false"],
      ["update", "true", "1.50"],
      ["index", "logs", undefined],
    ]);
  });

  it("reads an _id with a lone surrogate as the engine stores it, with U+FFFD in its place (hostile-input audit: two ids of one document)", () => {
    const parsed = parseBulk(body('{"index":{"_index":"logs","_id":"a\\ud800"}}', "{}", '{"delete":{"_index":"logs","_id":"\\udc00b"}}', '{"index":{"_index":"logs","_id":"\\ud83d\\ude00"}}', "{}"), undefined);
    expect(parsed.ok && parsed.items.map((i) => i.id)).toEqual(["a\ufffd", "\ufffdb", "\u{1f600}"]);
  });

  it.each(['{"doc":{"x":1,"x":2}}', '{"doc":{"x":"abc}}', "[1]", '{"docx":1}', '{"doc":{"a":[{"k":1,"k":2}]}}', '{"doc":{"x":1},"doc":{"y":1}}'])(
    "leaves a request whose update body %s the engines refuse, whole request, to them (hostile-input audit: the other items were written)",
    (update) => {
      const parsed = parseBulk(body('{"index":{"_id":"a"}}', '{"message":"hi"}', '{"update":{"_id":"c"}}', update), "logs");
      expect(parsed).toMatchObject({ ok: false, reason: expect.stringContaining("update body") });
    },
  );

  it("takes update bodies the engines read, repeated keys in different objects included", () => {
    for (const update of ['{"doc":{"x":1},"doc_as_upsert":true}', '{"script":{"source":"ctx._source.n++","params":{"n":1}},"upsert":{"n":0},"scripted_upsert":false}', '{"doc":{"a":{"k":1},"b":{"k":"\\"k\\""}},"detect_noop":false,"_source":true}']) {
      expect(parseBulk(body('{"update":{"_id":"c"}}', update), "logs").ok, update).toBe(true);
    }
  });

  it("skips empty lines between actions, counting them in line numbers, and says when the body is nothing but blank lines", () => {
    expect(parseBulk("\n".repeat(1_200_000), "logs")).toMatchObject({ ok: false, blank: true });
    expect(parseBulk("", "logs")).toMatchObject({ ok: false, blank: false });
    expect(parseBulk("\n\n\n{bad\n", "logs")).toMatchObject({ ok: false, reason: "line 4 is not a JSON action" });
    // An empty source line is the item's source, as the engines read it, not skipped.
    const parsed = parseBulk('\n\n{"index":{"_id":"a"}}\n\n{"delete":{"_id":"b"}}\n', "logs");
    expect(parsed.ok && parsed.items.map((i) => [i.op, i.id, i.sourceLine])).toEqual([
      ["index", "a", ""],
      ["delete", "b", undefined],
    ]);
  });

  it("leaves a write whose _id is over 512 UTF-8 bytes to the engine, which refuses the whole request (differential audit: the rest was written); a delete's it answers alone", () => {
    for (const id of ["x".repeat(513), "\u00e9".repeat(257)]) {
      for (const op of ["index", "create", "update"]) {
        const parsed = parseBulk(body(`{"${op}":{"_id":${JSON.stringify(id)}}}`, "{}"), "logs");
        expect(parsed, op).toMatchObject({ ok: false, reason: expect.stringContaining("longer than 512 bytes") });
      }
      expect(parseBulk(body(`{"delete":{"_id":${JSON.stringify(id)}}}`), "logs").ok).toBe(true);
    }
    expect(parseBulk(body(`{"index":{"_id":${JSON.stringify("x".repeat(512))}}}`, "{}"), "logs").ok).toBe(true);
    expect(parseBulk(body(`{"index":{"_id":${JSON.stringify("\u00e9".repeat(256))}}}`, "{}"), "logs").ok).toBe(true);
  });

  it("leaves an action with a repeated key to the engine, which refuses it", () => {
    for (const line of ['{"index":{"_id":"1","_id":"2"}}', '{"index":{"_id":"1","_id":"2"},"x":1}']) {
      const parsed = parseBulk(body(line, "{}"), "logs");
      expect(parsed).toMatchObject({ ok: false, reason: expect.stringContaining("repeats") });
    }
  });

  it.each([
    ['{"index":{}}\n{"a":1}', "newline"],
    [body('{"index":{bad', "{}"), "not a JSON action"],
    [body('{"upsert":{}}', "{}"), "one of index"],
    [body('{"x":{},"index":{}}', "{}"), "one of index"],
    [body('{"1":{},"index":{}}', "{}"), "one of index"],
    [body('{"index":{"_index":"a"}}'), "no source line"],
    [body('{"delete":{"_id":"1"}}'), "names no index"],
    ["", "no actions"],
    // before: written as "[object Object]", "a,b", "Infinity", or into the path's index
    [body('{"index":{"_index":"logs","_id":{"a":1}}}', "{}"), "_id that is not a simple value"],
    [body('{"index":{"_index":"logs","_id":["a","b"]}}', "{}"), "_id that is not a simple value"],
    [body('{"index":{"_index":{"a":1}}}', "{}"), "_index that is not a string"],
    [body('{"index":{"_index":[5]}}', "{}"), "_index that is not a string"],
  ])("leaves a whole-request problem to the engine: %j", (text, reason) => {
    const parsed = parseBulk(text, undefined);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });
});

describe("sources nested too deep to rebuild", () => {
  const deep = (levels: number, open = '{"a":', close = "}") => `{"message":"hi","x":${open.repeat(levels)}1${close.repeat(levels)}}`;

  it(`are left to the engine past ${MAX_SOURCE_DEPTH} levels (counting brackets inside strings as text)`, () => {
    const item = (sourceLine: string) => ({ sourceLine });
    expect(parseSource(item(deep(MAX_SOURCE_DEPTH - 1)))).toBeDefined();
    expect(parseSource(item(deep(MAX_SOURCE_DEPTH)))).toBeUndefined();
    expect(parseSource(item(deep(5_000, "[", "]")))).toBeUndefined();
    // brackets and escaped quotes inside strings are not nesting
    expect(parseSource(item(`{"message":"${"[{".repeat(500)} \\" ${"{".repeat(300)}"}`))).toMatchObject({ message: expect.stringContaining("[{") });
  });

  it("nestsDeeperThan agrees with the nesting JSON.parse sees", () => {
    for (const [text, depth] of [["1", 0], ["[]", 1], ['{"a":[{"b":"]]]"}]}', 3], [String.raw`["\\", ["\""]]`, 2]] as const) {
      JSON.parse(text);
      expect(nestsDeeperThan(text, depth)).toBe(false);
      expect(nestsDeeperThan(text, depth - 1)).toBe(depth > 0);
    }
  });
});

describe("arrivalId", () => {
  it("sorts in arrival order, also within one millisecond", () => {
    const ids = [arrivalId(1000), arrivalId(1000), arrivalId(1000), arrivalId(1001), arrivalId(36 ** 5)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("parseBulkInSlices", () => {
  it("gives the event loop turns on a large body and parses it as parseBulk does", async () => {
    const body = '{"delete":{"_index":"logs-1","_id":"x"}}\n'.repeat(PARSE_SLICE_LINES * 3) + '{"index":{"_id":"y"}}\n{"message":"hi"}\n';
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    const parsed = await parseBulkInSlices(body, "logs-2");
    clearInterval(timer);
    expect(turns).toBeGreaterThan(0);
    expect(parsed).toEqual(parseBulk(body, "logs-2"));
    expect(parsed.ok && parsed.items.at(-1)).toMatchObject({ op: "index", index: "logs-2", sourceLine: '{"message":"hi"}' });
  });

  it("names the line of a missing source line past a slice boundary", async () => {
    const body = "\n".repeat(PARSE_SLICE_LINES + 4) + '{"index":{"_index":"a"}}\n';
    expect(await parseBulkInSlices(body, undefined)).toEqual({ ok: false, reason: `line ${PARSE_SLICE_LINES + 5} has no source line` });
  });
});

describe("timeOf: a document's time as the proxy decides with it", () => {
  const now = Date.UTC(2026, 11, 4, 12, 0, 0);
  const skew = 300_000;
  const at = (value: unknown) => timeOf({ "@timestamp": value }, "@timestamp", now, skew);

  it("reads times as the engines' default date format does, and epoch milliseconds as a number or digits", () => {
    expect(at("2026-12-04T11:00:00Z")).toBe(now - 3_600_000);
    expect(at("2026-12-04T13:00:00.5+02:00")).toBe(now - 3_600_000 + 500);
    expect(at("2026-12-01")).toBe(Date.UTC(2026, 11, 1));
    // No zone is UTC (the engines read it so); minutes only; +hhmm; +hh.
    expect(at("2026-12-04T11:00:00")).toBe(now - 3_600_000);
    expect(at("2026-12-04T11:00Z")).toBe(now - 3_600_000);
    expect(at("2026-12-04T11Z")).toBe(now - 3_600_000);
    expect(at("2026-12-04T12:00:00+0100")).toBe(now - 3_600_000);
    expect(at("2026-12-04T12:00:00+01")).toBe(now - 3_600_000);
    expect(at("2026-12-04T11:00:00.123456789Z")).toBe(now - 3_600_000 + 123);
    expect(at(now - 10)).toBe(now - 10);
    expect(at(String(now - 10))).toBe(now - 10);
    expect(at(`${now - 10}.75`)).toBe(now - 10);
    expect(at(now - 10.5)).toBe(now - 11); // cut toward zero
    // Four digits are a year, as a number or a string (the engines try the date format first); year-month too.
    expect(at("2026")).toBe(Date.UTC(2026, 0, 1));
    expect(at(2026)).toBe(Date.UTC(2026, 0, 1));
    expect(at("2026-11")).toBe(Date.UTC(2026, 10, 1));
    expect(at("20261")).toBe(20261);
  });

  it("takes the arrival time for a time past now + NEARDUP_TIME_SKEW_MS: a future time was a candidate for ever", () => {
    expect(at(now + skew)).toBe(now + skew);
    expect(at(now + skew + 1)).toBe(now);
    expect(at("2099-01-01T00:00:00Z")).toBe(now);
  });

  it("takes the arrival time for what is not a time: Date.parse read 'Dec 4' as 2001 and rolled 2024-02-30 over to March", () => {
    expect(at("5")).toBe(5); // epoch milliseconds, as the engines read it (Date.parse: the year 2001)
    for (const value of ["Dec 4", "2024-02-30", "2026-12-04 10:00", "2026-12-04T25:00", "2026-12-04T10:00:00+25:00", -1, 1e300, null, true, {}, undefined]) expect(at(value), String(value)).toBe(now);
  });
});
