/**
 * `neardup dashboards install` against a local stand-in for the saved objects
 * import API (Kibana and OpenSearch Dashboards cannot run on these machines):
 * request path, headers, multipart body and overwrite flag, what is printed,
 * and the errors for a wrong URL, bad credentials and an unsupported version.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createProgram } from "../../../src/cli/program.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

interface StandIn {
  url: string;
  seen: Seen[];
  server: Server;
}

type Behaviour = { version?: string; status?: number; importStatus?: number; failIds?: string[] };

async function standIn(b: Behaviour = {}): Promise<StandIn> {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (b.status) return json(b.status, { statusCode: b.status, error: "Unauthorized", message: "[security_exception] unable to authenticate user" });
    if (req.method === "GET" && req.url === "/api/status") return json(200, { name: "stand-in", version: { number: b.version ?? "8.19.0" } });
    if (req.method === "POST" && req.url!.includes("/api/saved_objects/_import")) {
      if (b.importStatus) return json(b.importStatus, { message: "bad request" });
      const form = await new Response(body, { headers: { "content-type": req.headers["content-type"]! } }).formData();
      const file = form.get("file") as File;
      const objects = (await file.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; id: string; attributes: { title: string } });
      const failed = objects.filter((o) => b.failIds?.includes(o.id));
      return json(200, {
        success: failed.length === 0,
        successCount: objects.length - failed.length,
        successResults: objects.filter((o) => !failed.includes(o)).map((o) => ({ type: o.type, id: o.id, meta: { title: o.attributes.title } })),
        ...(failed.length ? { errors: failed.map((o) => ({ type: o.type, id: o.id, error: { type: "missing_references" } })) } : {}),
      });
    }
    json(404, { statusCode: 404, error: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

function sink() {
  const chunks: string[] = [];
  return { stream: new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) }), text: () => chunks.join("") };
}

async function cli(args: string[]) {
  const stdout = sink();
  const stderr = sink();
  process.exitCode = undefined;
  await createProgram({ stdin: process.stdin, stdout: stdout.stream, stderr: stderr.stream }).parseAsync(["node", "neardup", "dashboards", "install", ...args]);
  const code = process.exitCode ?? 0;
  process.exitCode = undefined;
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

async function fileOf(s: Seen): Promise<{ name: string; text: string; type: string }> {
  const form = await new Response(s.body, { headers: { "content-type": s.headers["content-type"]! } }).formData();
  const file = form.get("file") as File;
  return { name: file.name, text: await file.text(), type: file.type };
}

describe("neardup dashboards install", () => {
  let s: StandIn;
  beforeEach(async () => {
    s = await standIn();
  });
  afterEach(async () => {
    await new Promise((r) => s.server.close(r));
  });

  it("Kibana: POSTs the shipped file as multipart to the space's import API with overwrite and kbn-xsrf, and prints what it imported", async () => {
    const r = await cli(["--kibana", `${s.url}/`, "--space", "ops", "--username", "elastic", "--password", "s3cret-pw"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const [status, post] = s.seen;
    expect(status).toMatchObject({ method: "GET", url: "/api/status" });
    expect(post!.method).toBe("POST");
    const url = new URL(post!.url, s.url);
    expect(url.pathname).toBe("/s/ops/api/saved_objects/_import");
    expect(url.searchParams.get("overwrite")).toBe("true");
    expect(post!.headers["kbn-xsrf"]).toBe("true");
    expect(post!.headers["osd-xsrf"]).toBeUndefined();
    expect(post!.headers.authorization).toBe(`Basic ${Buffer.from("elastic:s3cret-pw").toString("base64")}`);
    expect(post!.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const file = await fileOf(post!);
    expect(file.name).toBe("neardup.ndjson");
    expect(file.text).toBe(readFileSync("dashboards/kibana/neardup.ndjson", "utf8"));
    const count = file.text.trim().split("\n").length;
    expect(r.stdout).toContain(`imported ${count} objects into Kibana 8.19.0:`);
    expect(r.stdout).toMatch(/dashboard\s+neardup-dashboard\s+neardup: near-duplicates/);
    expect(r.stdout).toContain(`open ${s.url}/s/ops/app/dashboards#/view/neardup-dashboard`);
    expect(r.stdout + r.stderr).not.toContain("s3cret-pw");
  });

  it("OpenSearch Dashboards: osd-xsrf, no space prefix, the tenant header, an API key, and the chosen index pattern and field", async () => {
    await new Promise((r) => s.server.close(r));
    s = await standIn({ version: "2.19.0" });
    const r = await cli(["--opensearch-dashboards", s.url, "--space", "global", "--api-key", "a2V5", "--index-pattern", "news-*", "--by", "fields.tenant"]);
    expect(r.code).toBe(0);
    const post = s.seen[1]!;
    expect(new URL(post.url, s.url).pathname).toBe("/api/saved_objects/_import");
    expect(new URL(post.url, s.url).search).toBe("?overwrite=true");
    expect(post.headers["osd-xsrf"]).toBe("true");
    expect(post.headers["kbn-xsrf"]).toBeUndefined();
    expect(post.headers.securitytenant).toBe("global");
    expect(post.headers.authorization).toBe("ApiKey a2V5");
    const text = (await fileOf(post)).text;
    expect(text).toContain('"title":"news-*"');
    expect(text).toContain("fields.tenant");
    expect(text).not.toContain("neardup-documents*");
    expect(r.stdout).toContain("into OpenSearch Dashboards 2.19.0");
  });

  it("a re-install sends the same objects with overwrite again", async () => {
    await cli(["--kibana", s.url]);
    await cli(["--kibana", s.url]);
    const posts = s.seen.filter((x) => x.method === "POST");
    expect(posts).toHaveLength(2);
    expect(posts.every((p) => p.url === "/api/saved_objects/_import?overwrite=true")).toBe(true);
    expect((await fileOf(posts[0]!)).text).toBe((await fileOf(posts[1]!)).text);
  });

  it("bad credentials (401): a clear error, exit 1, no password in it", async () => {
    await new Promise((r) => s.server.close(r));
    s = await standIn({ status: 401 });
    const r = await cli(["--kibana", s.url, "--username", "elastic", "--password", "wrong-pw"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`neardup: Kibana at ${s.url} refused the credentials for GET /api/status (HTTP 401): check --username/--password or --api-key`);
    expect(r.stderr).not.toContain("wrong-pw");
    expect(s.seen.filter((x) => x.method === "POST")).toHaveLength(0);
  });

  it("a wrong URL: nobody listening, not a URL, or not Kibana", async () => {
    const closed = s.url;
    await new Promise((r) => s.server.close(r));
    const refused = await cli(["--kibana", `http://user:pw@${closed.slice(7)}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`neardup: cannot reach Kibana at ${closed} (ECONNREFUSED): check --kibana`);
    expect(refused.stderr).not.toContain("pw@");

    const notUrl = await cli(["--kibana", "localhost:5601"]);
    expect(notUrl.stderr).toMatch(/--kibana must be an http\(s\) URL/);
    expect(notUrl.code).toBe(1);

    s = await standIn();
    const notKibana = await cli(["--kibana", `${s.url}/some/path`]);
    expect(notKibana.code).toBe(1);
    expect(notKibana.stderr).toContain(`${s.url}/some/path does not look like Kibana: GET /api/status answered HTTP 404`);
  });

  it("an unsupported version is refused before anything is imported, with a hint when it is the other product", async () => {
    await new Promise((r) => s.server.close(r));
    s = await standIn({ version: "7.17.9" });
    const old = await cli(["--kibana", s.url]);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(`Kibana 7.17.9 at ${s.url} is not supported: neardup's saved objects are for Kibana 8.x`);
    const wrongProduct = await cli(["--opensearch-dashboards", s.url]);
    expect(wrongProduct.stderr).toContain("OpenSearch Dashboards 7.17.9");
    expect(wrongProduct.stderr).toContain("(Kibana? use --kibana)");
    expect(s.seen.filter((x) => x.method === "POST")).toHaveLength(0);
  });

  it("objects the product refuses are listed, exit 1", async () => {
    await new Promise((r) => s.server.close(r));
    s = await standIn({ failIds: ["neardup-dashboard"] });
    const r = await cli(["--kibana", s.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("did not import every object:\n  dashboard neardup-dashboard: missing_references");
  });

  it("needs one of --kibana or --opensearch-dashboards, not both", async () => {
    await expect(cli([])).rejects.toThrow(/process.exit unexpectedly called with "1"/);
    await expect(cli(["--kibana", s.url, "--opensearch-dashboards", s.url])).rejects.toThrow(/process.exit unexpectedly called with "1"/);
  });
});
