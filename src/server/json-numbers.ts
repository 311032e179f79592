/**
 * Numbers a JSON body holds that JavaScript cannot carry to the engine as sent.
 * The API parses bodies with `JSON.parse` and writes `fields` again with
 * `JSON.stringify`, so an integer past 2^53 lost its last digits
 * (`9007199254740993` was stored as `9007199254740992`: two order ids became
 * one) and a number past the double range became `null`. The engine would
 * store both as sent (a `long` holds up to 2^63). Such a body is refused with
 * a 400 naming where the number is, rather than stored altered: sent as a
 * string, the engine still indexes it into a numeric field.
 */

export interface LossyNumber {
  /** Where the number is: `fields.order_id`, `items[3].fields.n`, `[0]`. */
  path: string;
  /** The number as sent. */
  literal: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Cheap test first: only a run of 16 digits (2^53 has 16) or a 3-digit exponent can be lossy. */
const SUSPECT = /\d{16}|[eE][+-]?\d{3}/;
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** The integer a JSON number without a fraction denotes, exactly (`1.2345e+25` included). */
function exactInteger(written: string): bigint {
  const [mantissa, exponent] = written.split(/e\+?/i) as [string, string | undefined];
  if (exponent === undefined) return BigInt(mantissa);
  const [whole, fraction = ""] = mantissa.split(".") as [string, string | undefined];
  return BigInt(whole + fraction) * 10n ** BigInt(Number(exponent) - fraction.length);
}

/**
 * True when `literal` (a JSON number) reaches the engine as another value after `JSON.parse` then
 * `JSON.stringify`: an integer whose shortest double spelling is another integer (`9007199254740993` ->
 * `9007199254740992`; `291351943332284200` survives), or any number past the double range (-> `null`).
 * A literal with a fraction or exponent is a double for the engine too, so it is not.
 */
export function isLossy(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return true;
  if (/[.eE]/.test(literal)) return false;
  if (literal.length - (literal.startsWith("-") ? 1 : 0) < 16) return false;
  return exactInteger(JSON.stringify(value)) !== BigInt(literal);
}

/** The end (one past the closing quote) of the JSON string starting at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let j = start + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

function pathOf(prefix: string, steps: (string | number)[]): string {
  if (prefix === "" && steps.length === 0) return "body";
  let path = prefix;
  for (const step of steps) {
    if (typeof step === "number") path += `[${step}]`;
    else if (IDENTIFIER.test(step)) path += path === "" ? step : `.${step}`;
    else path += `[${JSON.stringify(step)}]`;
  }
  return path;
}

/** {@link findLossyNumber} of a UTF-8 body, read as text only when it may hold one. */
export function findLossyNumberIn(body: Buffer): LossyNumber | undefined {
  return SUSPECT.test(body.toString("latin1")) ? findLossyNumber(body.toString("utf8")) : undefined;
}

/** The message of a refused lossy number. */
export function lossyMessage(found: LossyNumber): string {
  return `${found.path} is ${found.literal}, a number JSON cannot carry here without changing it (integers past 2^53 lose digits; past the double range it becomes null): send it as a string, which the engine indexes into a numeric field`;
}

/**
 * The first lossy number of a JSON text, with its path; undefined when there is none (or the text is not JSON:
 * `JSON.parse` says why). `prefix`: the path of the text itself (`items[3]` for an NDJSON line).
 */
export function findLossyNumber(text: string, prefix = ""): LossyNumber | undefined {
  if (!SUSPECT.test(text)) return undefined;
  const steps: (string | number)[] = [];
  const inObject: boolean[] = [];
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (expectKey && inObject.at(-1)) {
        try {
          steps[steps.length - 1] = JSON.parse(text.slice(i, end)) as string;
        } catch {
          return undefined;
        }
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      inObject.push(c === 0x7b);
      steps.push(c === 0x7b ? "" : 0);
      expectKey = c === 0x7b;
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      inObject.pop();
      steps.pop();
      i++;
    } else if (c === 0x2c) {
      if (inObject.at(-1)) expectKey = true;
      else if (inObject.length > 0) steps[steps.length - 1] = (steps.at(-1) as number) + 1;
      i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)?.[0];
      if (literal === undefined) return undefined;
      if (isLossy(literal)) return { path: pathOf(prefix, steps), literal };
      i += literal.length;
    } else {
      i++; // white space, ':', true, false, null
    }
  }
  return undefined;
}
