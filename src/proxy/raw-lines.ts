/**
 * Lines of a `_bulk` body that are not UTF-8. The engines refuse such an item
 * themselves (`Invalid UTF-8 middle byte`), one item, and write the others. The
 * proxy reads the body as text, where those bytes would become U+FFFD and be
 * written so; sending the whole request as it came instead (as before) wrote
 * every other item unchecked, a near-duplicate included.
 *
 * Each such line is held here under a placeholder line (a NUL, a random token:
 * never JSON, so the item is not fingerprinted and goes to the engine as sent),
 * and {@link ndjsonBytes} gives its bytes back when the item is written: the
 * engine sees the line as the client sent it and answers that item as it would
 * have. A placeholder in an action line makes the request unreadable to the
 * proxy, which then forwards the original body, as for any action it cannot read.
 */
import { isUtf8 } from "node:buffer";
import { randomUUID } from "node:crypto";

const held = new Map<string, Buffer>();

/** The body as text with its non-UTF-8 lines held under placeholders; `release` forgets them. Undefined when the body is UTF-8. */
export function holdInvalidLines(body: Buffer): { text: string; lines: number; release(): void } | undefined {
  if (isUtf8(body)) return undefined;
  const token = randomUUID();
  const parts: string[] = [];
  const keys: string[] = [];
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    const line = body.subarray(start, end);
    if (isUtf8(line)) parts.push(line.toString("utf8"));
    else {
      const key = `\u0000neardup-raw-line:${token}:${keys.length}`;
      held.set(key, Buffer.from(line));
      keys.push(key);
      parts.push(key);
    }
    start = end + 1;
  }
  return {
    text: parts.join("\n"),
    lines: keys.length,
    release: () => {
      for (const key of keys) held.delete(key);
    },
  };
}

/** The client's own bytes of a held line; undefined for any other line. */
function heldBytes(line: string): Buffer | undefined {
  return line.charCodeAt(0) === 0 ? held.get(line) : undefined;
}

/** NDJSON of `lines` (each ended by a newline) as bytes, a held line as the client's own: runs of text are encoded whole. */
export function ndjsonBytes(lines: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  let text = "";
  for (const line of lines) {
    const bytes = heldBytes(line);
    if (bytes === undefined) {
      text += `${line}\n`;
      continue;
    }
    parts.push(Buffer.from(text), bytes, NEWLINE);
    text = "";
  }
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}

const NEWLINE = Buffer.from("\n");
