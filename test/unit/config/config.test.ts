import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildConfig } from "../../../src/config/config.js";
import { SETTINGS } from "../../../src/config/settings.js";

describe("buildConfig", () => {
  it("takes documented defaults: embedded engine, port 8080", () => {
    const c = buildConfig({});
    expect(c.engine).toBeUndefined();
    expect(c.server).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(c.index).toBe("neardup-documents");
    expect(c.local).toEqual({ port: 9200, dataDir: ".neardup/opensearch-data", heap: "1g" });
  });
  it("builds an engine connection from the URL and credentials", () => {
    const c = buildConfig({ NEARDUP_ENGINE_URL: "https://es:9200", NEARDUP_ENGINE_USERNAME: "u", NEARDUP_ENGINE_PASSWORD: "p" });
    expect(c.engine).toMatchObject({ url: "https://es:9200", username: "u", password: "p", requestTimeoutMs: 30000 });
  });
  it("names the variable and the problem for a bad value", () => {
    expect(() => buildConfig({ NEARDUP_PORT: "eighty" })).toThrow(/NEARDUP_PORT="eighty" is invalid/);
    expect(() => buildConfig({ NEARDUP_ENGINE_URL: "not a url" })).toThrow(/NEARDUP_ENGINE_URL/);
    expect(() => buildConfig({ NEARDUP_INDEX: "Upper" })).toThrow(/NEARDUP_INDEX="Upper" is invalid: lowercase/);
    expect(() => buildConfig({ NEARDUP_LSH_KEY_BUDGET: "-1" })).toThrow(/NEARDUP_LSH_KEY_BUDGET="-1" is invalid/);
    expect(() => buildConfig({ NEARDUP_LSH_KEY_BUDGET: "many" })).toThrow(/NEARDUP_LSH_KEY_BUDGET="many" is invalid/);
    expect(buildConfig({ NEARDUP_LSH_KEY_BUDGET: "0" }).dedup.lshKeyBudget).toBe(0);
    expect(() => buildConfig({ NEARDUP_MIRROR_DOCS: "-5" })).toThrow(/NEARDUP_MIRROR_DOCS="-5" is invalid/);
    expect(() => buildConfig({ NEARDUP_MIRROR_DOCS: "lots" })).toThrow(/NEARDUP_MIRROR_DOCS="lots" is invalid/);
    expect(() => buildConfig({ NEARDUP_MIRROR_DOCS: "1.5" })).toThrow(/NEARDUP_MIRROR_DOCS="1.5" is invalid/);
    expect(() => buildConfig({ NEARDUP_UNKNOWN_WRITE_HOLD_MS: "0" })).toThrow(/NEARDUP_UNKNOWN_WRITE_HOLD_MS="0" is invalid/);
    expect(() => buildConfig({ NEARDUP_UNKNOWN_WRITE_HOLD_MS: "ten minutes" })).toThrow(/NEARDUP_UNKNOWN_WRITE_HOLD_MS="ten minutes" is invalid/);
    expect(buildConfig({ NEARDUP_UNKNOWN_WRITE_HOLD_MS: "15000" }).dedup.unknownWriteHoldMs).toBe(15_000);
    expect(() => buildConfig({ NEARDUP_BODY_TIMEOUT_MS: "0" })).toThrow(/NEARDUP_BODY_TIMEOUT_MS="0" is invalid/);
    expect(() => buildConfig({ NEARDUP_BODY_TIMEOUT_MS: "20s" })).toThrow(/NEARDUP_BODY_TIMEOUT_MS="20s" is invalid/);
    expect(buildConfig({ NEARDUP_BODY_TIMEOUT_MS: "5000" }).limits.bodyIdleMs).toBe(5_000);
    expect(buildConfig({}).limits.bodyIdleMs).toBe(20_000);
    expect(buildConfig({}).dedup.mirrorDocs).toBe(0);
    expect(buildConfig({ NEARDUP_MIRROR_DOCS: "2000000" }).dedup.mirrorDocs).toBe(2_000_000);
    expect(() => buildConfig({ NEARDUP_LOCAL_HEAP: "2gb" })).toThrow(/NEARDUP_LOCAL_HEAP="2gb" is invalid: must be a JVM heap size/);
    expect(() => buildConfig({ NEARDUP_PEER_ANALYSES: "maybe" })).toThrow(/NEARDUP_PEER_ANALYSES="maybe" is invalid/);
    const peers = { NEARDUP_PROXY_PORT: "0" };
    expect([buildConfig(peers).proxy?.forwardAnalyses, buildConfig(peers).lease?.peerAnalyses]).toEqual([true, true]);
    expect([buildConfig({ ...peers, NEARDUP_PEER_ANALYSES: "off" }).proxy?.forwardAnalyses, buildConfig({ ...peers, NEARDUP_PEER_ANALYSES: "off" }).lease?.peerAnalyses]).toEqual([false, false]);
  });
  it("takes the embedded engine's heap, which `npm run engine` reads too (one shell can export it for both)", () => {
    expect(buildConfig({ NEARDUP_LOCAL_HEAP: "2g" }).local.heap).toBe("2g");
  });
  it("refuses proxy rules that reach the HTTP API's index (two deciders for one index), naming the rule", () => {
    const proxy = { NEARDUP_PROXY_PORT: "0" };
    expect(() => buildConfig({ ...proxy, NEARDUP_PROXY_INDICES: "neardup-*:text" })).toThrow(/NEARDUP_PROXY_INDICES: rule "neardup-\*" matches NEARDUP_INDEX \(neardup-documents\)/);
    expect(() => buildConfig({ ...proxy, NEARDUP_INDEX: "logs", NEARDUP_INDEX_ROLLOVER: "true", NEARDUP_PROXY_INDICES: "logs-*:message" })).toThrow(/matches NEARDUP_INDEX \(logs\)/);
    // Without rollover, `logs` and `logs-*` are different indices.
    expect(buildConfig({ ...proxy, NEARDUP_INDEX: "logs", NEARDUP_PROXY_INDICES: "logs-*:message" }).proxy?.rules.map((r) => r.pattern)).toEqual(["logs-*"]);
    expect(buildConfig({ ...proxy, NEARDUP_PROXY_INDICES: "logs-*:message" }).proxy?.rules).toHaveLength(1);
  });
  it("refuses an unknown NEARDUP_ setting (a typo) by name", () => {
    expect(() => buildConfig({ NEARDUP_ENGNE_URL: "http://x" })).toThrow(/unknown setting NEARDUP_ENGNE_URL/);
  });
  it("never echoes a secret in a validation error", () => {
    const bad = { NEARDUP_ENGINE_URL: "http://x:9200", NEARDUP_ENGINE_TIMEOUT_MS: "-1", NEARDUP_ENGINE_PASSWORD: "pw-123" };
    expect(() => buildConfig(bad)).toThrow(/NEARDUP_ENGINE_TIMEOUT_MS/);
    try {
      buildConfig(bad);
    } catch (err) {
      expect(String(err)).not.toContain("pw-123");
    }
  });
  it("has every setting documented in the README's configuration table", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    for (const [name, setting] of Object.entries(SETTINGS)) {
      const shown = setting.default === "" ? "(empty)" : `\`${setting.default}\``;
      expect(readme, name).toContain(`| \`${name}\` | ${shown} | ${setting.doc} |`);
    }
  });
});
