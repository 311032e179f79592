/**
 * `neardup dashboards install`: imports the dashboards (generated from
 * src/dashboards/definition.ts with the chosen index pattern and rate-by
 * field) into Kibana 8.x or OpenSearch Dashboards 2.x through the saved
 * objects import API, overwriting what an earlier install put there.
 */
import type { Writable } from "node:stream";
import { Option, type Command } from "commander";
import { redactUrl } from "../engine/errors.js";
import { DASHBOARD_ID, SHIPPED_BY_FIELD, savedObjects, toNdjson } from "../dashboards/saved-objects.js";
import type { Product } from "../dashboards/vega.js";

export interface InstallOptions {
  product: Product;
  /** Base URL of Kibana / OpenSearch Dashboards, e.g. `http://localhost:5601` (a base path is kept). */
  url: string;
  /** Kibana space id; OpenSearch Dashboards: the security plugin's tenant. Default: the default space / tenant. */
  space?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  /** Kibana API key (base64 `id:key`), sent as `Authorization: ApiKey`. */
  apiKey?: string | undefined;
  indexPattern: string;
  byField: string;
  /** Per-request timeout in milliseconds. Default 30,000. */
  timeoutMs?: number | undefined;
}

export interface InstallResult {
  version: string;
  imported: { type: string; id: string; title: string }[];
  dashboardUrl: string;
}

/** An install failure with a message for people (no credentials in it). */
export class InstallError extends Error {
  override readonly name = "InstallError";
}

const PRODUCT: Record<Product, { name: string; flag: string; major: number; xsrf: string; other: string }> = {
  kibana: { name: "Kibana", flag: "--kibana", major: 8, xsrf: "kbn-xsrf", other: "--opensearch-dashboards" },
  "opensearch-dashboards": { name: "OpenSearch Dashboards", flag: "--opensearch-dashboards", major: 2, xsrf: "osd-xsrf", other: "--kibana" },
};

function baseUrl(raw: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InstallError(`${flag} must be an http(s) URL like http://localhost:5601, got ${JSON.stringify(raw.replace(/\/\/[^@/]*@/, "//"))}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InstallError(`${flag} must be an http(s) URL, got ${url.protocol} (${redactUrl(raw)})`);
  return url;
}

function authHeaders(o: InstallOptions, url: URL): Record<string, string> {
  if (o.apiKey) return { authorization: `ApiKey ${o.apiKey}` };
  const username = o.username ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const password = o.password ?? (url.password ? decodeURIComponent(url.password) : undefined);
  if (username === undefined) return {};
  return { authorization: `Basic ${Buffer.from(`${username}:${password ?? ""}`).toString("base64")}` };
}

/** Installs the dashboards; resolves with what was imported, or throws an {@link InstallError} saying what went wrong. */
export async function installDashboards(o: InstallOptions): Promise<InstallResult> {
  const p = PRODUCT[o.product];
  const url = baseUrl(o.url, p.flag);
  const headers: Record<string, string> = { ...authHeaders(o, url), [p.xsrf]: "true" };
  url.username = "";
  url.password = "";
  const base = url.toString().replace(/\/$/, "");
  const shown = redactUrl(base);
  let prefix = "";
  if (o.space && o.space !== "default") {
    if (!/^[a-z0-9_-]+$/.test(o.space) && o.product === "kibana") throw new InstallError(`--space must be a Kibana space id (lowercase letters, digits, _ and -), got ${JSON.stringify(o.space)}`);
    if (o.product === "kibana") prefix = `/s/${o.space}`;
    else headers.securitytenant = o.space;
  }
  const timeoutMs = o.timeoutMs ?? 30_000;

  const call = async (path: string, init: RequestInit, what: string): Promise<{ status: number; body: unknown }> => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).name;
      throw new InstallError(`cannot reach ${p.name} at ${shown} (${why}): check ${p.flag}`);
    }
    if (res.status === 401 || res.status === 403) {
      throw new InstallError(`${p.name} at ${shown} refused the credentials for ${what} (HTTP ${res.status}): check --username/--password or --api-key`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, body };
  };

  const status = await call("/api/status", { method: "GET" }, "GET /api/status");
  const version = (status.body as { version?: { number?: unknown } } | undefined)?.version?.number;
  if (status.status !== 200 || typeof version !== "string") {
    throw new InstallError(`${shown} does not look like ${p.name}: GET /api/status answered HTTP ${status.status}${typeof version === "string" ? "" : " without a version"}; check ${p.flag}`);
  }
  const major = Number(version.split(".")[0]);
  if (major !== p.major) {
    const hint = o.product === "kibana" && major <= 3 ? ` (OpenSearch Dashboards? use ${p.other})` : o.product === "opensearch-dashboards" && major >= 7 ? ` (Kibana? use ${p.other})` : "";
    throw new InstallError(`${p.name} ${version} at ${shown} is not supported: neardup's saved objects are for ${p.name} ${p.major}.x${hint}`);
  }

  const ndjson = toNdjson(savedObjects(o.product, { indexPattern: o.indexPattern, byField: o.byField }));
  const form = new FormData();
  form.append("file", new Blob([ndjson], { type: "application/ndjson" }), "neardup.ndjson");
  const imported = await call(`${prefix}/api/saved_objects/_import?overwrite=true`, { method: "POST", body: form }, "the import");
  const result = imported.body as
    | { success?: boolean; successResults?: { type: string; id: string; destinationId?: string; meta?: { title?: string } }[]; errors?: { type: string; id: string; error?: { type?: string; message?: string } }[]; message?: string }
    | undefined;
  if (imported.status === 404 && prefix) throw new InstallError(`${p.name} at ${shown} has no space ${JSON.stringify(o.space)} (HTTP 404 on the import)`);
  if (imported.status !== 200 || !result) {
    throw new InstallError(`${p.name} at ${shown} refused the import: HTTP ${imported.status}${result?.message ? `: ${result.message}` : ""}`);
  }
  if (result.success !== true) {
    const errors = (result.errors ?? []).map((e) => `${e.type} ${e.id}: ${e.error?.type ?? "error"}${e.error?.message ? ` ${e.error.message}` : ""}`);
    throw new InstallError(`${p.name} at ${shown} did not import every object:\n  ${errors.join("\n  ") || "no reason given"}`);
  }
  const dashboard = result.successResults?.find((r) => r.type === "dashboard");
  return {
    version,
    imported: (result.successResults ?? []).map((r) => ({ type: r.type, id: r.destinationId ?? r.id, title: r.meta?.title ?? "" })),
    dashboardUrl: `${shown}${prefix}/app/dashboards#/view/${dashboard?.destinationId ?? DASHBOARD_ID}`,
  };
}

interface InstallFlags {
  kibana?: string;
  opensearchDashboards?: string;
  space?: string;
  username?: string;
  password?: string;
  apiKey?: string;
  indexPattern: string;
  by: string;
}

const EXAMPLES = `
Examples:
  $ neardup dashboards install --kibana http://localhost:5601 --username elastic --password changeme
  $ neardup dashboards install --kibana https://kibana.example:5601 --space ops --api-key "$KIBANA_API_KEY"
  $ neardup dashboards install --opensearch-dashboards http://localhost:5601 --index-pattern 'news-*' --by fields.tenant

Re-running overwrites the objects of an earlier install (same ids). The files it imports
are also shipped in dashboards/kibana/ and dashboards/opensearch-dashboards/ (see docs/dashboards.md).`;

/** Adds `dashboards install` to the program. */
export function addDashboardsCommand(program: Command, out: { stdout: Writable; stderr: Writable }): void {
  const dashboards = program.command("dashboards").description("Kibana / OpenSearch Dashboards dashboards of duplicate rates.");
  dashboards
    .command("install")
    .description("Import the neardup dashboards through the saved objects API (overwrites an earlier install).")
    .addOption(new Option("--kibana <url>", "Kibana 8.x base URL").conflicts("opensearchDashboards"))
    .addOption(new Option("--opensearch-dashboards <url>", "OpenSearch Dashboards 2.x base URL"))
    .option("--space <id>", "Kibana space (OpenSearch Dashboards: security tenant); default: the default one")
    .option("--username <name>", "basic auth user name")
    .option("--password <password>", "basic auth password (never printed)")
    .option("--api-key <key>", "Kibana API key (base64 id:key)")
    .option("--index-pattern <pattern>", "indices the dashboards read", "neardup-documents*")
    .option("--by <field>", "aggregatable user field of the rate-by panel (a keyword field or keyword subfield)", SHIPPED_BY_FIELD)
    .addHelpText("after", EXAMPLES)
    .action(async (flags: InstallFlags, cmd: Command) => {
      const target = flags.kibana ? { product: "kibana" as const, url: flags.kibana } : flags.opensearchDashboards ? { product: "opensearch-dashboards" as const, url: flags.opensearchDashboards } : undefined;
      if (!target) cmd.error("error: give --kibana URL or --opensearch-dashboards URL");
      try {
        const result = await installDashboards({ ...target!, space: flags.space, username: flags.username, password: flags.password, apiKey: flags.apiKey, indexPattern: flags.indexPattern, byField: flags.by });
        const name = PRODUCT[target!.product].name;
        out.stdout.write(`imported ${result.imported.length} objects into ${name} ${result.version}:\n`);
        for (const o of result.imported) out.stdout.write(`  ${o.type.padEnd(13)} ${o.id.padEnd(28)} ${o.title}\n`);
        out.stdout.write(`open ${result.dashboardUrl}\n`);
      } catch (err) {
        if (!(err instanceof InstallError)) throw err;
        out.stderr.write(`neardup: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
