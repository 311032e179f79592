import { describe, expect, it } from "vitest";
import { scopeFor } from "../../../src/server/auth.js";

describe("scopeFor", () => {
  it("writes need the write scope, including writes forwarded by another sidecar; everything else reads", () => {
    expect(scopeFor("POST", "/documents")).toBe("write");
    expect(scopeFor("POST", "/documents/_bulk")).toBe("write");
    expect(scopeFor("POST", "/internal/documents")).toBe("write");
    expect(scopeFor("POST", "/check")).toBe("read");
    expect(scopeFor("GET", "/documents/a/duplicates")).toBe("read");
  });
});
