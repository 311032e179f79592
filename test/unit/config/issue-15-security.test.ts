/** Issue 15: API keys are configured hashed, exposure needs keys, and no setting error echoes a credential. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, parseApiKeys } from "../../../src/config/api-keys.js";
import { buildConfig, checkExposure } from "../../../src/config/config.js";
import { configFromEnv } from "../../../src/config/env.js";

const HASH = "a".repeat(64);

describe("API keys (issue 15)", () => {
  it("parses name:scopes:sha256 entries from commas and lines, with comments", () => {
    expect(parseApiKeys(`ingest:read+write:${HASH}\n# ops\nops:admin:${"B".repeat(64)}`, "X")).toEqual([
      { name: "ingest", scopes: ["read", "write"], sha256: HASH },
      { name: "ops", scopes: ["admin"], sha256: "b".repeat(64) },
    ]);
  });
  it("refuses a raw key, an unknown scope and a duplicate name, without echoing the value", () => {
    expect(() => parseApiKeys("ingest:read:my-raw-secret-key", "NEARDUP_API_KEYS")).toThrow(/SHA-256 in 64 hex/);
    try {
      parseApiKeys("ingest:read:my-raw-secret-key", "NEARDUP_API_KEYS");
    } catch (err) {
      expect(String(err)).not.toContain("my-raw-secret-key");
    }
    expect(() => parseApiKeys(`a:delete:${HASH}`, "K")).toThrow(/unknown scope "delete"/);
    expect(() => parseApiKeys(`a:read:${HASH},a:write:${HASH}`, "K")).toThrow(/used twice/);
  });
  it("knows loopback hosts", () => {
    // Every spelling of ::1, and IPv4-mapped 127/8 (docs audit: 0:0:0:0:0:0:0:1 was refused as reachable from other machines).
    for (const h of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3", "0:0:0:0:0:0:0:1", "0000::0001", "[0:0::1]", "::ffff:127.0.0.1", "::FFFF:7f00:1"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "example.com", "::2", "::ffff:10.0.0.1", "fe80::1", "1::1"]) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe("exposure check (issue 15)", () => {
  it("refuses to serve on a non-loopback address without keys", () => {
    expect(() => checkExposure(buildConfig({ NEARDUP_HOST: "0.0.0.0" }))).toThrow(/NEARDUP_HOST=0.0.0.0 is reachable from other machines but no API keys are configured/);
    expect(() => configFromEnv({ NEARDUP_HOST: "0.0.0.0" })).toThrow(/no API keys/);
  });
  it("allows it with keys, or when explicitly told", () => {
    expect(() => checkExposure(buildConfig({ NEARDUP_HOST: "0.0.0.0", NEARDUP_API_KEYS: `a:read:${HASH}` }))).not.toThrow();
    expect(() => checkExposure(buildConfig({ NEARDUP_HOST: "0.0.0.0", NEARDUP_ALLOW_UNAUTHENTICATED: "true" }))).not.toThrow();
    expect(() => checkExposure(buildConfig({}))).not.toThrow();
  });
  it("reads keys from a file and TLS files; TLS needs both", () => {
    const dir = mkdtempSync(join(tmpdir(), "neardup-keys-"));
    writeFileSync(join(dir, "keys"), `# keys\nfile-key:write:${HASH}\n`);
    writeFileSync(join(dir, "cert.pem"), "CERT");
    writeFileSync(join(dir, "key.pem"), "KEY");
    const c = configFromEnv({ NEARDUP_HOST: "0.0.0.0", NEARDUP_API_KEYS_FILE: join(dir, "keys"), NEARDUP_TLS_CERT_FILE: join(dir, "cert.pem"), NEARDUP_TLS_KEY_FILE: join(dir, "key.pem") });
    expect(c.security.apiKeys.map((k) => k.name)).toEqual(["file-key"]);
    expect(c.security.tls).toEqual({ cert: "CERT", key: "KEY" });
    expect(() => configFromEnv({ NEARDUP_TLS_CERT_FILE: join(dir, "cert.pem") })).toThrow(/must be set together/);
  });
});

describe("secrets in start-up errors (issue 15)", () => {
  it.each(["http//elastic:hunter2-pw@es:9200", "ftp://elastic:hunter2-pw@es", "elastic:hunter2-pw@es:9200", "http://elastic:hunter2-pw@es:9200 x"])("a malformed NEARDUP_ENGINE_URL %j is named without its password", (url) => {
    let message = "";
    try {
      buildConfig({ NEARDUP_ENGINE_URL: url });
    } catch (err) {
      message = String(err);
    }
    expect(message).toMatch(/NEARDUP_ENGINE_URL=.* is invalid/);
    expect(message).not.toContain("hunter2-pw");
  });
});
