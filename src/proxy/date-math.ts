/**
 * Date math in index names, as the engines resolve them: `<logs-{now/d}>` is
 * `logs-2026.12.05` on that day (UTC). The proxy resolves such a name before
 * it matches the rules, so the items are deduplicated in the index the engine
 * would write them to, and writes them there under the resolved name.
 *
 * The subset resolved: `now`, plus or minus whole units (`y M w d h H m s`),
 * an optional rounding down to one of them (`/d`); a format of `yyyy`, `yy`,
 * `MM`, `dd`, `HH`, `mm`, `ss` and literal `.`, `-`, `_` (default
 * `yyyy.MM.dd`); a time zone of `UTC`, `Z` or a fixed offset (`+08:00`).
 * Anything else (another pattern letter, a named zone) is left as sent:
 * `undefined`, and the name matches no rule, as before.
 */

const UNIT_MS: Record<string, number> = { w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, H: 3_600_000, m: 60_000, s: 1000 };

/** Whether the name is a date-math name (`<...>`). */
export function isDateMathName(name: string): boolean {
  return name.length > 2 && name.startsWith("<") && name.endsWith(">");
}

/** The concrete index a date-math name names at `now` (epoch ms), or `undefined` when it is not one this resolves. */
export function resolveDateMathName(name: string, now: number): string | undefined {
  if (!isDateMathName(name)) return undefined;
  const inner = name.slice(1, -1);
  let out = "";
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === "\\" && (inner[i + 1] === "{" || inner[i + 1] === "}")) {
      out += inner[++i];
    } else if (c === "{") {
      // `{expr}` or `{expr{format|zone}}`: find the matching close.
      let depth = 1;
      let j = i + 1;
      for (; j < inner.length && depth > 0; j++) {
        if (inner[j] === "{") depth++;
        else if (inner[j] === "}") depth--;
      }
      if (depth !== 0) return undefined;
      const resolved = resolveExpression(inner.slice(i + 1, j - 1), now);
      if (resolved === undefined) return undefined;
      out += resolved;
      i = j - 1;
    } else if (c === "}") {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}

/** `now/d`, `now-1d/d{yyyy.MM}`, `now{yyyy.MM.dd|+08:00}` as text. */
function resolveExpression(expression: string, now: number): string | undefined {
  const open = expression.indexOf("{");
  const math = open < 0 ? expression : expression.slice(0, open);
  let format = "yyyy.MM.dd";
  let offsetMs = 0;
  if (open >= 0) {
    if (!expression.endsWith("}")) return undefined;
    const [pattern, zone] = expression.slice(open + 1, -1).split("|");
    if (pattern) format = pattern;
    if (zone !== undefined) {
      const offset = zoneOffsetMs(zone);
      if (offset === undefined) return undefined;
      offsetMs = offset;
    }
  }
  const m = /^now((?:[+-]\d+[yMwdhHms])*)(?:\/([yMwdhHms]))?$/.exec(math);
  if (!m) return undefined;
  // Local time of the zone, as UTC fields: arithmetic and rounding happen there, as the engines do.
  const local = new Date(now + offsetMs);
  for (const [, sign, amount, unit] of m[1]!.matchAll(/([+-])(\d+)([yMwdhHms])/g)) {
    const n = (sign === "-" ? -1 : 1) * Number(amount);
    if (unit === "y") local.setUTCFullYear(local.getUTCFullYear() + n);
    else if (unit === "M") local.setUTCMonth(local.getUTCMonth() + n);
    else local.setTime(local.getTime() + n * UNIT_MS[unit!]!);
  }
  if (m[2] !== undefined) roundDown(local, m[2]);
  return formatUtcFields(local, format);
}

/** Rounds the UTC fields down to the start of the unit (`w`: Monday). */
function roundDown(d: Date, unit: string): void {
  if (unit === "y") d.setUTCMonth(0, 1);
  else if (unit === "M") d.setUTCDate(1);
  else if (unit === "w") d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (unit === "y" || unit === "M" || unit === "w" || unit === "d") d.setUTCHours(0, 0, 0, 0);
  else if (unit === "h" || unit === "H") d.setUTCMinutes(0, 0, 0);
  else if (unit === "m") d.setUTCSeconds(0, 0);
  else d.setUTCMilliseconds(0);
}

function zoneOffsetMs(zone: string): number | undefined {
  if (zone === "UTC" || zone === "Z" || zone === "GMT") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return minutes > 18 * 60 ? undefined : (m[1] === "-" ? -1 : 1) * minutes * 60_000;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** The UTC fields in a Java-style pattern of the subset above; `undefined` for any other letter. */
function formatUtcFields(d: Date, format: string): string | undefined {
  const fields: Record<string, () => string> = {
    yyyy: () => pad(d.getUTCFullYear(), 4),
    yy: () => pad(d.getUTCFullYear() % 100, 2),
    MM: () => pad(d.getUTCMonth() + 1, 2),
    dd: () => pad(d.getUTCDate(), 2),
    HH: () => pad(d.getUTCHours(), 2),
    mm: () => pad(d.getUTCMinutes(), 2),
    ss: () => pad(d.getUTCSeconds(), 2),
  };
  let out = "";
  for (let i = 0; i < format.length; ) {
    const c = format[i]!;
    if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (format[j] === c) j++;
      const token = format.slice(i, j);
      const field = fields[token];
      if (!field) return undefined;
      out += field();
      i = j;
    } else if (c === "." || c === "-" || c === "_") {
      out += c;
      i++;
    } else {
      return undefined;
    }
  }
  return out;
}
