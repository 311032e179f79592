/**
 * Lines of a UTF-8 input, as the CLI reads its corpora. Only `\n` ends a line
 * (a `\r` before it is dropped), as in the engines' NDJSON: `node:readline`
 * also ends a line at a lone `\r`, which split a text holding one into two
 * documents, and a JSON line with `\r` as white space into two bad lines. A
 * line longer than the limit is skipped, not held: readline gathered a 630 MB
 * line in one string and the run died with `RangeError: Invalid string length`.
 */
import { isUtf8 } from "node:buffer";
import { NeardupError } from "../core/errors.js";

/** Longest line read (64 MiB): a 1M-character text, JSON-escaped at 6 bytes a character, fits several times over. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Why a line past the limit is skipped, as the commands report it. */
export function tooLong(bytes: number): string {
  return `longer than ${MAX_LINE_BYTES} bytes (${bytes}); skipped`;
}

/** A line (`text`), or one past the limit or not UTF-8 (`text: undefined`); `bytes` it took in the input, its newline included. */
export interface InputLine {
  text: string | undefined;
  bytes: number;
  /** Set when the line is not valid UTF-8: decoded, its bad bytes would all read as U+FFFD, and two different texts as one (CLI audit). */
  notUtf8?: true;
}

/** Why a line without `text` is skipped, as the commands report it. */
export function skippedBecause(read: InputLine): string {
  return read.notUtf8 ? "not valid UTF-8 (convert the input, e.g. iconv -f latin1 -t UTF-8); skipped" : tooLong(read.bytes);
}

const NEWLINE = 0x0a;

/** The line's text, or undefined when its bytes are not UTF-8. */
function decode(parts: Buffer[], size: number): string | undefined {
  const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
  const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
  const bytes = line.subarray(0, end);
  return isUtf8(bytes) ? bytes.toString("utf8") : undefined;
}

/**
 * The lines of `input`, in order, less a UTF-8 byte order mark at its start; throws INVALID_INPUT when the
 * input starts with a UTF-16 byte order mark.
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<InputLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let first = true;
  /** The line of the bytes gathered so far (`bytes`: with its newline); the first line loses a byte order mark. */
  const line = (bytes: number): InputLine => {
    const fits = size <= maxLineBytes;
    let text = fits ? decode(parts, size) : undefined;
    if (first && text?.charCodeAt(0) === 0xfeff) text = text.slice(1);
    first = false;
    return fits && text === undefined ? { text, bytes, notUtf8: true } : { text, bytes };
  };
  /** The complete lines of `data`; the rest is kept for the next chunk. */
  function* split(data: Buffer): Generator<InputLine> {
    let from = 0;
    for (let at = data.indexOf(NEWLINE, from); at !== -1; at = data.indexOf(NEWLINE, from)) {
      const piece = data.subarray(from, at);
      size += piece.length;
      if (size <= maxLineBytes) parts.push(piece);
      yield line(size + 1);
      parts = [];
      size = 0;
      from = at + 1;
    }
    if (from < data.length) {
      const rest = data.subarray(from);
      size += rest.length;
      // Past the limit the line's bytes are counted, not kept.
      if (size <= maxLineBytes) parts.push(rest);
      else parts = [];
    }
  }
  /** The input's first bytes, until two are seen (a first chunk may hold one). */
  let head: Buffer | undefined = Buffer.alloc(0);
  for await (const chunk of input) {
    let data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (head !== undefined) {
      data = Buffer.concat([head, data]);
      if (data.length < 2) {
        head = data;
        continue;
      }
      head = undefined;
      if ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff)) {
        throw new NeardupError("INVALID_INPUT", "the input starts with a UTF-16 byte order mark: convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)", { field: "input" });
      }
    }
    yield* split(data);
  }
  if (head !== undefined) yield* split(head); // an input of one byte
  if (size > 0) yield line(size);
}
