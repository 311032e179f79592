/**
 * Which indices the proxy deduplicates, and with which text field and policy:
 * `NEARDUP_PROXY_INDICES`, e.g. `logs-*:message,articles:body:reject`.
 * Patterns use `*` as a wildcard (like the engines' index patterns); the first
 * rule that matches wins; an index no rule matches passes through untouched.
 */
import { NeardupError } from "../core/errors.js";
import { globToRegExp } from "../core/glob.js";
import { POLICIES, type Policy } from "../service/options.js";

export interface IndexRule {
  /** The pattern as written, e.g. `logs-*`. */
  pattern: string;
  /** Top-level source field holding the text. */
  textField: string;
  /** Policy for near-duplicates; `undefined`: the service default (`NEARDUP_POLICY`). */
  policy: Policy | undefined;
  matches: (index: string) => boolean;
}

/** Parses `pattern:field[:policy]` rules separated by commas; errors name the setting and the rule. */
export function parseIndexRules(spec: string, setting = "NEARDUP_PROXY_INDICES"): IndexRule[] {
  const rules: IndexRule[] = [];
  for (const raw of spec.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [pattern, textField, policy, ...rest] = raw.split(":").map((s) => s.trim());
    const bad = (problem: string) => new NeardupError("INVALID_CONFIG", `${setting}: rule ${JSON.stringify(raw)} ${problem}`, { field: setting });
    if (rest.length > 0 || !pattern || !textField) throw bad("must be pattern:field or pattern:field:policy, e.g. logs-*:message");
    if (!/^[a-z0-9*][a-z0-9*._+-]*$/.test(pattern)) throw bad("has an invalid index pattern (lowercase letters, digits, * . _ + -)");
    if (textField.includes(".") || textField.startsWith("neardup") || textField.startsWith("_")) {
      throw bad("must name a top-level source field outside neardup.* (no dots, no leading underscore)");
    }
    if (policy !== undefined && !(POLICIES as readonly string[]).includes(policy)) throw bad(`has policy ${JSON.stringify(policy)}: expected one of ${POLICIES.join(", ")}`);
    const re = globToRegExp(pattern);
    // Like the engines' wildcard expansion, `*` does not reach hidden or system indices (leading dot).
    const matches = (index: string) => re.test(index) && (!index.startsWith(".") || pattern.startsWith("."));
    rules.push({ pattern, textField, policy: policy as Policy | undefined, matches });
  }
  return rules;
}

/** The first rule matching the index, or `undefined` (the index passes through). */
export function ruleFor(rules: readonly IndexRule[], index: string): IndexRule | undefined {
  return rules.find((r) => r.matches(index));
}
