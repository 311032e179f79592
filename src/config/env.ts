import { readFileSync } from "node:fs";
import { NeardupError } from "../core/errors.js";
import { parseApiKeys } from "./api-keys.js";
import { buildConfig, checkExposure, type Config } from "./config.js";

/** The text of a file named by a setting (or a flag): INVALID_CONFIG naming it when it cannot be read. */
export function readSetting(path: string, setting: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new NeardupError("INVALID_CONFIG", `${setting}=${JSON.stringify(path)} cannot be read`, { field: setting, cause: err });
  }
}

/** The one place that reads the process environment (plus the CA, key and TLS files it names). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const config = buildConfig(env);
  if (config.engine && config.engineCaFile) config.engine.caCert = readSetting(config.engineCaFile, "NEARDUP_ENGINE_CA_FILE");
  const { security } = config;
  if (security.apiKeysFile) {
    const fromFile = parseApiKeys(readSetting(security.apiKeysFile, "NEARDUP_API_KEYS_FILE"), "NEARDUP_API_KEYS_FILE");
    for (const key of fromFile) {
      if (security.apiKeys.some((k) => k.name === key.name)) {
        throw new NeardupError("INVALID_CONFIG", `API key name ${key.name} is in both NEARDUP_API_KEYS and NEARDUP_API_KEYS_FILE`, { field: "NEARDUP_API_KEYS_FILE" });
      }
      security.apiKeys.push(key);
    }
  }
  checkExposure(config);
  if (security.tlsCertFile && security.tlsKeyFile) {
    security.tls = { cert: readSetting(security.tlsCertFile, "NEARDUP_TLS_CERT_FILE"), key: readSetting(security.tlsKeyFile, "NEARDUP_TLS_KEY_FILE") };
  }
  return config;
}
