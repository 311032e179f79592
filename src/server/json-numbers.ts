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

import { PARAMETER_RANGES } from "../service/input.js";
import { walkJson } from "./json-walk.js";

export interface LossyNumber {
  /** Where the number is: `fields.order_id`, `items[3].fields.n`, `[0]`. */
  path: string;
  /** The number as sent. */
  literal: string;
}

/** Cheap test first: only a run of 16 digits (2^53 has 16) or a 3-digit exponent can be lossy. */
const SUSPECT = /\d{16}|[eE][+-]?\d{3}/;

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

/** {@link findLossyNumber} of a UTF-8 body, read as text only when it may hold one. */
export function findLossyNumberIn(body: Buffer): LossyNumber | undefined {
  return SUSPECT.test(body.toString("latin1")) ? findLossyNumber(body.toString("utf8")) : undefined;
}

/** A path inside a document's `fields` (`fields.a`, `items[3].fields.n[0]`, `[3].fields.n`): values stored as sent. */
const IN_FIELDS = /^(?:(?:items)?\[\d+\]\.)?fields(?:[.[]|$)/;
/** A numeric parameter of a request or of a bulk item (`limit`, `items[2].time`), and its name. */
const PARAMETER = /^(?:(?:items)?\[\d+\]\.)?([a-z_]+)$/;

/**
 * The message of a refused lossy number. Only a `fields` value is stored as sent, so only there is "send it as a
 * string" the way out; `limit`, `radius`, `min_similarity` and `time` take numbers (a string is refused), and get
 * their range instead (audit 22a, F5: the advice was given for them too, and the string then refused).
 */
export function lossyMessage(found: LossyNumber): string {
  const why = "(integers past 2^53 lose digits; past the double range it becomes null)";
  if (IN_FIELDS.test(found.path)) return `${found.path} is ${found.literal}, a number JSON cannot carry here without changing it ${why}: send it as a string, which the engine indexes into a numeric field`;
  const name = PARAMETER.exec(found.path)?.[1] ?? "";
  const range = Object.hasOwn(PARAMETER_RANGES, name) ? PARAMETER_RANGES[name] : undefined;
  if (range !== undefined) return `${found.path} must be ${range}, got ${found.literal}`;
  return `${found.path} is ${found.literal}, a number JSON cannot carry without changing it ${why}`;
}

/**
 * The first lossy number of a JSON text, with its path; undefined when there is none (or the text is not JSON:
 * `JSON.parse` says why). `prefix`: the path of the text itself (`items[3]` for an NDJSON line).
 */
export function findLossyNumber(text: string, prefix = ""): LossyNumber | undefined {
  if (!SUSPECT.test(text)) return undefined;
  let literal = "";
  const path = walkJson(text, prefix, {
    number: (written) => {
      literal = written;
      return isLossy(written);
    },
  });
  return path === undefined ? undefined : { path, literal };
}
