import { isIPv6 } from "node:net";
import { NeardupError } from "../core/errors.js";

/** What a key may do: `read` (check, search, stats, fingerprint, compare, clusters), `write` (documents, bulk), `admin` (everything). */
export const SCOPES = ["read", "write", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** One configured API key: only the SHA-256 of the key is kept, never the key. */
export interface ApiKey {
  name: string;
  scopes: Scope[];
  /** SHA-256 of the key, 64 lowercase hex characters. */
  sha256: string;
}

/**
 * Parses `name:scopes:sha256hex` entries, separated by commas or new lines
 * (`#` starts a comment). Scopes are joined by `+`: `ingest:read+write:9f86...`.
 * `where` names the setting in errors. Never echoes a hash back in an error:
 * it would help nobody, and a misplaced raw key must not end up in a log.
 */
export function parseApiKeys(text: string, where: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const entries = text
    .split(/[\n,]/)
    .map((line) => line.replace(/#.*$/, "").trim())
    .filter((line) => line !== "");
  entries.forEach((entry, i) => {
    const parts = entry.split(":");
    const at = `${where} entry ${i + 1}`;
    if (parts.length !== 3) throw new NeardupError("INVALID_CONFIG", `${at} must look like name:scopes:sha256hex`, { field: where });
    const [name, scopeText, hash] = parts as [string, string, string];
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) {
      throw new NeardupError("INVALID_CONFIG", `${at}: the name must be 1-64 letters, digits, . _ -`, { field: where });
    }
    const scopes = scopeText.split("+").map((s) => s.trim());
    for (const scope of scopes) {
      if (!(SCOPES as readonly string[]).includes(scope)) {
        throw new NeardupError("INVALID_CONFIG", `${at} (${name}): unknown scope ${JSON.stringify(scope)}; scopes are ${SCOPES.join(", ")}`, { field: where });
      }
    }
    const sha256 = hash.trim().toLowerCase().replace(/^sha256=/, "");
    if (!/^[0-9a-f]{64}$/.test(sha256)) {
      throw new NeardupError("INVALID_CONFIG", `${at} (${name}): the key must be given as its SHA-256 in 64 hex characters (printf %s "$KEY" | sha256sum)`, { field: where });
    }
    if (keys.some((k) => k.name === name)) throw new NeardupError("INVALID_CONFIG", `${at}: the name ${name} is used twice`, { field: where });
    keys.push({ name, scopes: scopes as Scope[], sha256 });
  });
  return keys;
}

/** Whether the host the server binds to is only reachable from this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)) return true;
  if (!isIPv6(h)) return false;
  // The URL parser writes an IPv6 address one way: `[::1]`, and IPv4-mapped 127.x.y.z as `[::ffff:7fxx:yyzz]`.
  const canonical = new URL(`http://[${h}]`).hostname;
  return canonical === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}
