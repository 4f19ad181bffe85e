import { KIND_NAMES } from "../ip/network-kinds.ts";
import { COUNTER_NAMES } from "../ip/reputation-index.ts";

export const FORMATS = ["mmdb", "asn-csv", "address-list", "prefix-json", "asn-list", "domain-list"] as const;
export type SourceFormat = (typeof FORMATS)[number];

/** What each format can feed. IP lists feed a counter, a kind or a flag; the rest feed one dataset file. */
const TARGETS: Record<SourceFormat, readonly string[]> = {
  mmdb: ["city", "city-ipv4", "city-ipv6", "country", "asn-isp"],
  "asn-csv": ["asn"],
  "address-list": [...COUNTER_NAMES, ...KIND_NAMES, "confirmed-bad", "verified-crawler"],
  "prefix-json": [...COUNTER_NAMES, ...KIND_NAMES, "confirmed-bad", "verified-crawler"],
  "asn-list": [...KIND_NAMES],
  "domain-list": ["disposable", "disposable-wildcard", "free", "allow"],
};

export interface Source {
  readonly name: string;
  /** https://, http:// or file://; `${VAR}` is replaced from the environment. */
  readonly url: string;
  readonly format: SourceFormat;
  readonly feeds: string;
  readonly licence: string;
  /** Environment variables the source needs; without them it is skipped, not failed. */
  readonly requires: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

export class SourcesError extends Error {}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Validates sources.json; every problem is reported with the source's position and field. */
export function parseSources(text: string, file: string): Source[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new SourcesError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  const list = (document as { sources?: unknown })?.sources;
  if (!Array.isArray(list)) throw new SourcesError(`${file}: expected {"sources": [ … ]}`);
  const problems: string[] = [];
  const names = new Set<string>();
  const sources: Source[] = [];
  list.forEach((raw, i) => {
    const at = `${file}: sources[${i}]`;
    if (raw === null || typeof raw !== "object") return void problems.push(`${at}: expected an object`);
    const s = raw as Record<string, unknown>;
    const str = (field: string) => (typeof s[field] === "string" && s[field] !== "" ? (s[field] as string) : null);
    const name = str("name");
    if (!name || !NAME.test(name)) problems.push(`${at}.name: lower-case letters, digits and dashes, e.g. "firehol-level1"`);
    else if (names.has(name)) problems.push(`${at}.name: "${name}" appears twice`);
    else names.add(name);
    const url = str("url");
    if (!url || !/^(https?|file):\/\//.test(url)) problems.push(`${at}.url: an https://, http:// or file:// URL`);
    const format = str("format") as SourceFormat | null;
    if (!format || !FORMATS.includes(format)) problems.push(`${at}.format: one of ${FORMATS.join(", ")}`);
    const feeds = str("feeds");
    if (format && FORMATS.includes(format) && (!feeds || !TARGETS[format].includes(feeds))) {
      problems.push(`${at}.feeds: for format ${format}, one of ${TARGETS[format].join(", ")}`);
    }
    const licence = str("licence");
    if (!licence) problems.push(`${at}.licence: say under which terms the data may be used`);
    const requires = s.requires ?? [];
    if (!Array.isArray(requires) || requires.some((r) => typeof r !== "string")) problems.push(`${at}.requires: a list of environment variable names`);
    const headers = s.headers ?? {};
    if (typeof headers !== "object" || Array.isArray(headers) || Object.values(headers as object).some((v) => typeof v !== "string")) {
      problems.push(`${at}.headers: an object of header names to strings`);
    }
    if (name && url && format && feeds && licence) {
      sources.push({ name, url, format, feeds, licence, requires: requires as string[], headers: headers as Record<string, string> });
    }
  });
  if (problems.length) throw new SourcesError(problems.join("\n"));
  return sources;
}

/** `${VAR}` from the environment; null when a variable is missing. */
export function expand(text: string, env: Record<string, string | undefined>): string | null {
  let missing = false;
  const out = text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === "") missing = true;
    return value ?? "";
  });
  return missing ? null : out;
}
