/**
 * The page at /ui in headless Chromium (Debian `chromium`, driven by
 * puppeteer-core) against a real engine (issue 13): it loads with no console
 * errors, the summary and the rate chart show the seeded rates, the
 * paste-a-text search finds the planted near-duplicate with why, a recent
 * cluster opens from the keyboard, and nothing overflows a phone's width.
 *
 * NEARDUP_CHROMIUM names the browser (default /usr/bin/chromium; .ci/dashboards.sh
 * installs it). NEARDUP_SCREENSHOTS=docs/img writes the screenshots the docs show.
 */
import { existsSync, mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MOM_A, MOM_B } from "../fixtures/texts/near-duplicates.js";
import { startApi, type ApiHarness } from "../helpers/api.js";
import { seedDocs, writeSeed } from "../helpers/dashboards-seed.js";
import { engineTargets } from "../helpers/engines.js";

const CHROMIUM = process.env.NEARDUP_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = process.env.NEARDUP_SCREENSHOTS;
const HOUR = 3_600_000;

const target = engineTargets()[0]!;

/** The page's globals used in page.evaluate callbacks (the project's tsconfig has no DOM lib). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  activeElement: { tagName: string } | null;
  documentElement: { scrollWidth: number };
};

describe(`the page at /ui, in headless Chromium, on ${target.kind} ${target.version}`, () => {
  let h: ApiHarness;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: run .ci/dashboards.sh (apt-get install -y chromium) or set NEARDUP_CHROMIUM`);
    h = await startApi(target);
    // Three seeded hours in the dedup window (20%, 50%, 0% duplicates), then the planted original now.
    const start = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR;
    await writeSeed(h.engine, h.index, seedDocs(start, HOUR));
    const planted = await request(h.app).post("/v1/documents").send({ id: "planted-original", text: MOM_A, fields: { source: "planted" } });
    expect(planted.status).toBe(201);
    await h.engine.refresh(h.index);
    server = h.app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
    page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warn") problems.push(`console.${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${(e as Error).message}`));
    page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.url()}`);
    });
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${base}/`, { waitUntil: "networkidle0" });
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    await h?.close();
  });

  it("/ redirects to /ui/, which loads with no console errors, failed requests or error answers", async () => {
    expect(page.url()).toBe(`${base}/ui/`);
    expect(problems).toEqual([]);
    expect(await page.$eval("#error", (e) => [e.hidden, e.textContent])).toEqual([true, ""]);
  });

  it("the summary shows the seeded documents and rate", async () => {
    const text = (sel: string) => page.$eval(sel, (e) => e.textContent);
    expect(await text("#total")).toBe("35"); // 34 seeded + the planted original
    expect(await text("#duplicates")).toBe("12");
    expect(await text("#rate")).toBe(`${((12 / 35) * 100).toFixed(1)}%`);
  });

  it("the rate chart draws the seeded hourly rates: 20%, 50% and 0%", async () => {
    const labels = await page.$$eval("#chart-rate_over_time svg [aria-label]", (els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
    const rates = labels.map((l) => /; rate: ([\d.]+%)/.exec(l)?.[1]).filter(Boolean);
    expect(rates).toEqual(expect.arrayContaining(["20.0%", "50.0%", "0.0%"]));
    const bars = await page.$$eval("#chart-top_clusters svg [aria-label]", (els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
    expect(bars.some((l) => /orig-a/.test(l) && /duplicates: 6\b/.test(l))).toBe(true);
    if (SHOTS) {
      for (const id of await page.$$eval(".chart > div[id^=chart-]", (els) => els.map((e) => e.id))) {
        const section = await page.$(`#${id}`);
        await (await section!.evaluateHandle((e) => e.parentElement!)).asElement()!.screenshot({ path: join(SHOTS, `ui-${id}.png`) });
      }
    }
  });

  it("pasting a text (keyboard only: Ctrl+Enter) shows the planted near-duplicate with distance, cosine and rule", async () => {
    await page.focus("#search-text");
    await page.keyboard.type(MOM_B);
    await page.keyboard.down("Control");
    await page.keyboard.press("Enter");
    await page.keyboard.up("Control");
    await page.waitForSelector("#search-table", { timeout: 20_000 });
    const rows = await page.$$eval("#search-table tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    const expected = (await request(h.app).post("/v1/search").send({ text: MOM_B })).body.matches[0];
    expect(rows[0]).toEqual(["planted-original", expected.status, String(expected.distance), expected.cosine.toFixed(3), expected.similarity.toFixed(3), expected.rule]);
    expect(expected.rule).toMatch(/\.(cosine|edit)$/);
    if (SHOTS) await (await page.$("#search"))!.screenshot({ path: join(SHOTS, "ui-search.png") });
  });

  it("a recent cluster opens from the keyboard (Tab to its link, Enter)", async () => {
    await page.focus("#recent-clusters a");
    const first = await page.$eval("#recent-clusters a", (a) => a.textContent);
    expect(first).toBe("orig-c"); // its latest duplicate is the most recent
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector("#cluster h3")?.textContent?.startsWith("Cluster of"), { timeout: 20_000 });
    expect(await page.$eval("#cluster h3", (e) => e.textContent)).toBe("Cluster of orig-c (3 documents)");
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H3");
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "ui-page.png"), fullPage: true });
    expect(problems).toEqual([]);
  });

  it("on a phone-sized screen nothing is wider than the screen", async () => {
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.reload({ waitUntil: "networkidle0" });
    await page.waitForSelector("body[data-ready=true]", { timeout: 30_000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "ui-phone.png"), fullPage: false });
    expect(problems).toEqual([]);
  });
});
