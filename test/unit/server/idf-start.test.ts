// NEARDUP_IDF_FILE (issue 14): read at start; a bad file stops the service before it listens.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { buildConfig } from "../../../src/config/config.js";
import { createLogger } from "../../../src/server/logger.js";
import { startService } from "../../../src/server/service.js";

describe("NEARDUP_IDF_FILE", () => {
  it("is in the config, and a missing file rejects the start naming the path", async () => {
    const config = buildConfig({ NEARDUP_PORT: "0", NEARDUP_ENGINE_URL: "http://127.0.0.1:9", NEARDUP_IDF_FILE: "/nonexistent/idf.json" });
    expect(config.idfFile).toBe("/nonexistent/idf.json");
    expect(buildConfig({}).idfFile).toBeUndefined();
    const logger = createLogger("silent", new Writable({ write: (_c, _e, cb) => cb() }));
    await expect(
      startService(config, { logger, startLocalEngine: () => Promise.reject(new Error("not used")) }),
    ).rejects.toMatchObject({ code: "ENVIRONMENT", message: expect.stringContaining("/nonexistent/idf.json") });
  });
});
