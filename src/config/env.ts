import { readFileSync } from "node:fs";
import { NeardupError } from "../core/errors.js";
import { buildConfig, type Config } from "./config.js";

/** The one place that reads the process environment (plus the CA file it names). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const config = buildConfig(env);
  if (config.engine && config.engineCaFile) {
    try {
      config.engine.caCert = readFileSync(config.engineCaFile, "utf8");
    } catch (err) {
      throw new NeardupError("INVALID_CONFIG", `NEARDUP_ENGINE_CA_FILE=${JSON.stringify(config.engineCaFile)} cannot be read`, {
        field: "NEARDUP_ENGINE_CA_FILE",
        cause: err,
      });
    }
  }
  return config;
}
