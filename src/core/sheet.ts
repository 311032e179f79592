/**
 * Sheets of fields (the sheet veto, docs/fingerprint-spec.md §8). A product page,
 * a spec sheet or a settings dump is mostly `label: value` lines: `内存：16GB`,
 * `Storage: 512GB PCIe NVMe SSD`. Two pages of one template about two items
 * differ only in a few values, a one-token edit that the rules for prose call
 * a near-duplicate; but another value is another item, and under `skip` or
 * `reject` it would be lost. So two sheets that give one label two spec
 * values (`isSpec`: a size, a model, a weight, a version; not a price, a
 * count, a date, an id or a phrase, which change on one item or name one
 * message) are not near-duplicates, whatever their other measures say.
 *
 * What a sheet is, on the raw text (normalization joins its lines):
 * - a field line is `label: value` (ASCII or full-width colon) with a label
 *   of 1-24 code points that holds a letter and no `/`, and a value of 1-80
 *   code points that does not start with `//` (a URL);
 * - a sheet has at least {@link SHEET_MIN_FIELDS} field lines, no label
 *   twice (a dialogue or a chat log repeats its speakers), and its field
 *   lines hold at least half of its letters and digits (a mail's headers
 *   above its body do not make it a sheet).
 *
 * A sheet's fields are kept as 32-bit hashes of label and value, each
 * normalized as the text is (§2) with every character but letters and
 * digits removed (a dot between digits stays), so that width, case, white
 * space, punctuation and traditional characters change no value.
 */
import { codePointLength, normalizeText } from "./normalize.js";

/** Fewest field lines of a sheet. */
export const SHEET_MIN_FIELDS = 3;
/** Longest raw text (UTF-16 code units) looked at for fields; longer texts are prose or tables, judged as prose. */
export const SHEET_MAX_TEXT = 4_000;
/** Most fields kept for a sheet (a longer one keeps its first). */
export const SHEET_MAX_FIELDS = 64;
const LABEL_MAX = 24;
const VALUE_MAX = 80;

/** Longest spec value (code points, normalized). */
const SPEC_MAX = 40;

/**
 * A sheet's fields: label hash, value hash and whether the value is a spec
 * (1) or not (0), three numbers a field, sorted by label hash.
 */
export type Sheet = Uint32Array;

const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;
const COLON = /[:\uff1a]/;
const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
/** Clause punctuation, once normalized: a value holding it is a phrase (terms of service), not a spec. */
const CLAUSE = /[,;!?\u3001\u3002]/;
const LONE_DOT = /(?<!\d)\.|\.(?!\d)/g;

/** The fields of `text` when it is a sheet (see the module comment); else undefined. */
export function sheetOf(text: string): Sheet | undefined {
  if (text.length > SHEET_MAX_TEXT) return undefined;
  // Cheap test first: most texts have fewer colons than a sheet has fields.
  let colons = 0;
  for (let i = 0; i < text.length && colons < SHEET_MIN_FIELDS; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a || c === 0xff1a) colons++;
  }
  if (colons < SHEET_MIN_FIELDS) return undefined;
  // The shape on the raw lines, then each field line normalized once: most texts with colons are no sheet.
  const lines: string[] = [];
  let fieldChars = 0;
  let allChars = 0;
  for (const raw of text.split(LINE_BREAK)) {
    const line = raw.trim();
    const chars = wordChars(line);
    allChars += chars;
    if (!fieldShaped(line)) continue;
    lines.push(line);
    fieldChars += chars;
  }
  if (lines.length < SHEET_MIN_FIELDS || fieldChars * 2 < allChars) return undefined;
  const labels = new Set<number>();
  const fields: number[] = [];
  for (const line of lines) {
    const field = fieldOf(normalizeText(line).normalized);
    if (field === undefined) continue;
    if (labels.has(field[0])) return undefined;
    labels.add(field[0]);
    if (fields.length < SHEET_MAX_FIELDS * 3) fields.push(...field);
  }
  return labels.size < SHEET_MIN_FIELDS ? undefined : sortFields(fields);
}

/** Whether a raw line reads `label: value` (see the module comment). */
function fieldShaped(line: string): boolean {
  const colon = COLON.exec(line);
  if (colon === null) return false;
  const label = line.slice(0, colon.index).trim();
  const value = line.slice(colon.index + 1).trim();
  const labelLength = codePointLength(label);
  if (labelLength < 1 || labelLength > LABEL_MAX || !LETTER.test(label) || label.includes("/")) return false;
  return value.length > 0 && !value.startsWith("//") && codePointLength(value) <= VALUE_MAX;
}

/** A field line's hashes, from its normalized text (NFKC made a full-width colon `:`). */
function fieldOf(normalized: string): [number, number, number] | undefined {
  const colon = normalized.indexOf(":");
  if (colon < 0) return undefined;
  const value = normalized.slice(colon + 1).trim();
  const labelKey = canonical(normalized.slice(0, colon));
  const valueKey = canonical(value);
  if (labelKey.length === 0 || valueKey.length === 0) return undefined;
  return [hash32(labelKey), hash32(valueKey), isSpec(value, valueKey) ? 1 : 0];
}

/** Quotes around a value and a separator after it (JSON and YAML lines: `"version": "4.4.0",`). */
const WRAPPING = /^["'\u201c\u201d]+|[,;]?["'\u201c\u201d]*[,;]?$/g;
/** A version without letters: `1.36-1`, `2.12.3`, `1:2.3-4`; not a dotted date or an IPv4 address (below). */
const VERSION = /^v?\d+(\.\d+){2,}([-+~][0-9a-z.+~-]*)?$|^v?\d+(\.\d+)+-\d[0-9a-z.+~]*$|^\d+:\d+(\.\d+)+([-+~][0-9a-z.+~-]*)?$/;
const DOTTED_DATE = /^\d{1,2}\.\d{1,2}\.\d{2,4}$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const MONTH = /(?<![a-z])(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?![a-z])/;
const CJK_DATE = /\d\s*年\s*\d|\d\s*月\s*\d|\d\s*日/;
const AGO = /(ago|前)$/;
/** A number of things or of money: `5999元`, `1.2万`, `2000+条`, `23件`, `99 usd`. */
const COUNT = /^[约~≈]?\s*\d[\d.]*\s*\+?\s*(元|万|千|亿|条|件|人|次|个|笔|单|rmb|cny|usd|eur)+\s*\+?$/;
/**
 * Stock and sales: `有货 23件`, `仅剩3件`, `月销 1000+`, `23 in stock`, `only 3 left`, `1,234 sold`, `2,000 reviews`.
 * They change on one item between two crawls whatever words surround the number.
 */
const STOCK = /有货|无货|现货|缺货|库存|仅剩|剩余|还剩|已售|月销|销量|售出|已抢|评价|评论|好评|(?<![a-z])(in|out of) stock(?![a-z])|(?<![a-z])only \d+ left|(?<![a-z\d.])\d[\d,.]*\s*\+?\s*(left$|(sold|reviews?|ratings?|orders?)(?![a-z]))/;
const YEARS = /(?<!\d)(19|20)\d\d\s*[-\u2013~]\s*((19|20)\d\d|\d\d|present)(?!\d)|©|\(c\)|copyright/;

/**
 * Whether a normalized value is a spec, what tells one item from another: a
 * digit and a letter (`16gb lpddr5`, `约1.7kg`, `i5-13500h`), or a version
 * (`1.36-1`, `2.12.3`); at most 40 code points, no clause punctuation. Not
 * what changes on one item or names one message: a bare number (a price, a
 * count, a rating), an identifier (an address or message id with `@`, a hash),
 * a date or an age, a count or price with its unit, a stock or sales figure
 * in words (`有货 23件`, `only 3 left`), a copyright's years.
 */
function isSpec(normalized: string, key: string): boolean {
  const value = normalized.replace(WRAPPING, "").trim();
  if (!DIGIT.test(key) || codePointLength(value) > SPEC_MAX || CLAUSE.test(value)) return false;
  if (!LETTER.test(key)) return VERSION.test(value) && !DOTTED_DATE.test(value) && !IPV4.test(value);
  if (value.includes("@") || hasIdentifier(value)) return false;
  if ((MONTH.test(value) && /\d/.test(value)) || CJK_DATE.test(value) || AGO.test(value)) return false;
  return !COUNT.test(value) && !STOCK.test(value) && !YEARS.test(value);
}

/** A token of letters and digits that is a hash or an id: hexadecimal of 8+ characters, or any of 12+. */
function hasIdentifier(value: string): boolean {
  for (const token of value.split(/[^0-9a-z]+/)) {
    if (token.length < 8 || !/\d/.test(token) || !/[a-z]/.test(token)) continue;
    if (token.length >= 12 || /^[0-9a-f]+$/.test(token)) return true;
  }
  return false;
}

/** A normalized (§2) label or value as compared: letters and digits only (and a dot between digits). */
function canonical(normalized: string): string {
  let kept = "";
  for (let i = 0; i < normalized.length; i++) {
    const c = normalized.charCodeAt(i);
    if (c === 0x2e || isWordChar(c)) kept += normalized[i];
  }
  return kept.includes(".") ? kept.replace(LONE_DOT, "") : kept;
}

/**
 * Whether a UTF-16 code unit is part of a word: an ASCII letter or digit, or
 * any other character outside white space, ASCII and Latin-1 punctuation and
 * symbols, general punctuation, CJK punctuation and full-width forms (a fast
 * stand-in for Unicode letters and digits; surrogates count, as the letters
 * beyond the BMP do).
 */
function isWordChar(c: number): boolean {
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
  return c >= 0xc0 && !(c >= 0x2000 && c <= 0x2bff) && !(c >= 0x3000 && c <= 0x303f) && !(c >= 0xfe10 && c <= 0xfe6f) && !(c >= 0xff00 && c <= 0xff0f) && !(c >= 0xff1a && c <= 0xff20) && !(c >= 0xff3b && c <= 0xff40) && !(c >= 0xff5b && c <= 0xff65);
}

/** Word characters in a raw line (isWordChar). */
function wordChars(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) if (isWordChar(line.charCodeAt(i))) n++;
  return n;
}

function sortFields(flat: number[]): Sheet {
  const n = flat.length / 3;
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => flat[x * 3]! - flat[y * 3]!);
  const out = new Uint32Array(n * 3);
  order.forEach((from, i) => {
    out[i * 3] = flat[from * 3]!;
    out[i * 3 + 1] = flat[from * 3 + 1]!;
    out[i * 3 + 2] = flat[from * 3 + 2]!;
  });
  return out;
}

/**
 * Whether two sheets give one label two values, both specs: two
 * items of one template. Labels only one side has (a field left out) do
 * not count.
 */
export function sheetsDiffer(a: Sheet, b: Sheet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      if (a[i + 1] !== b[j + 1] && a[i + 2] === 1 && b[j + 2] === 1) return true;
      i += 3;
      j += 3;
    } else if (x < y) i += 3;
    else j += 3;
  }
  return false;
}

/** FNV-1a over UTF-16 code units, 32 bits. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
