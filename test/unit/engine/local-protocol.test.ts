import { describe, expect, it } from "vitest";
import { buildJavaArgs, LineRing, parseLauncherLine, staleReason } from "../../../src/engine/local/protocol.js";

describe("parseLauncherLine", () => {
  it("parses the ready line", () => {
    expect(parseLauncherLine("OPENSEARCH_READY http://127.0.0.1:39263", "OPENSEARCH")).toEqual({
      kind: "ready",
      url: "http://127.0.0.1:39263",
      port: 39263,
    });
    expect(parseLauncherLine("ELASTICSEARCH_READY http://127.0.0.1:9200\r", "ELASTICSEARCH")).toMatchObject({ port: 9200 });
  });

  it("recognises a taken port", () => {
    expect(parseLauncherLine("OPENSEARCH_FAILED port 9200 on 127.0.0.1 is already in use", "OPENSEARCH")).toEqual({
      kind: "failed",
      reason: "port 9200 on 127.0.0.1 is already in use",
      portInUse: 9200,
    });
  });

  it("keeps other failure reasons", () => {
    expect(parseLauncherLine("OPENSEARCH_FAILED bad arguments: unknown argument --x", "OPENSEARCH")).toEqual({
      kind: "failed",
      reason: "bad arguments: unknown argument --x",
      portInUse: undefined,
    });
  });

  it("ignores other lines, the other engine's prefix and malformed URLs", () => {
    expect(parseLauncherLine("[INFO ] started", "OPENSEARCH")).toBeUndefined();
    expect(parseLauncherLine("ELASTICSEARCH_READY http://127.0.0.1:9200", "OPENSEARCH")).toBeUndefined();
    expect(parseLauncherLine("OPENSEARCH_READY 127.0.0.1:9200", "OPENSEARCH")).toBeUndefined();
    expect(parseLauncherLine("OPENSEARCH_READY http://127.0.0.1:9200/x", "OPENSEARCH")).toBeUndefined();
  });
});

describe("buildJavaArgs", () => {
  it("builds heap, classpath, main class and launcher flags", () => {
    const args = buildJavaArgs({
      mainClass: "neardup.local.LocalOpenSearch",
      port: 0,
      dataDir: "/tmp/d",
      heap: "1g",
      clusterName: "c",
      jvmArgs: ["-Dx=y"],
    });
    expect(args.slice(0, 2)).toEqual(["-Xms1g", "-Xmx1g"]);
    expect(args).toContain("-Dx=y");
    const cp = args.indexOf("-cp");
    expect(args[cp + 1]).toBe("target/classes:target/lib/*");
    expect(args.indexOf("-Dx=y")).toBeLessThan(cp);
    expect(args.slice(cp + 2)).toEqual([
      "neardup.local.LocalOpenSearch",
      "--port",
      "0",
      "--data",
      "/tmp/d",
      "--exit-on-stdin-eof",
      "--cluster-name",
      "c",
    ]);
  });

  it("uses the given classpath separator", () => {
    const args = buildJavaArgs({ mainClass: "M", port: 9200, dataDir: "d", heap: "512m", pathSeparator: ";" });
    expect(args).toContain("target/classes;target/lib/*");
  });

  it("rejects bad heap and port values", () => {
    expect(() => buildJavaArgs({ mainClass: "M", port: 9200, dataDir: "d", heap: "1 g" })).toThrow(RangeError);
    expect(() => buildJavaArgs({ mainClass: "M", port: 70000, dataDir: "d", heap: "1g" })).toThrow(RangeError);
    expect(() => buildJavaArgs({ mainClass: "M", port: 1.5, dataDir: "d", heap: "1g" })).toThrow(RangeError);
  });
});

describe("staleReason", () => {
  const built = { newestSourceMs: 100, stampMs: 200, hasClasses: true, libJars: 70 };
  it("is undefined for a current build", () => {
    expect(staleReason(built)).toBeUndefined();
  });
  it("asks for a build when anything is missing or older than the sources", () => {
    expect(staleReason({ ...built, hasClasses: false })).toMatch(/classes/);
    expect(staleReason({ ...built, libJars: 0 })).toMatch(/lib/);
    expect(staleReason({ ...built, stampMs: undefined })).toMatch(/no successful build/);
    expect(staleReason({ ...built, newestSourceMs: 300 })).toMatch(/changed/);
  });
});

describe("LineRing", () => {
  it("keeps the last n lines", () => {
    const r = new LineRing(2);
    for (const l of ["a", "b", "c"]) r.push(l);
    expect(r.toArray()).toEqual(["b", "c"]);
  });
});
