import { FORMAT_NAMES, FORMATS, type SourceFormat } from "./formats/index.ts";

export interface Source {
  readonly name: string;
  /**
   * https://, http://, file://, or npm:<package>/<file> for data an installed npm
   * package brings; `${VAR}` is replaced from the environment.
   */
  readonly url: string;
  readonly format: SourceFormat;
  readonly feeds: string;
  readonly licence: string;
  /** Environment variables the source needs; without them it is skipped, not failed. */
  readonly requires: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  /** Sources whose data this one replaces (a newer copy of the same dataset) once it has data of its own. */
  readonly supersedes: readonly string[];
}

export class SourcesError extends Error {}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const NPM_URL = /^npm:(@[a-z0-9._-]+\/)?[a-z0-9._-]+\/[^\s]+$/;

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
    if (!url || !(/^(https?|file):\/\//.test(url) || NPM_URL.test(url))) problems.push(`${at}.url: an https://, http:// or file:// URL, or npm:<package>/<file>`);
    const format = str("format") as SourceFormat | null;
    const known = format !== null && FORMAT_NAMES.includes(format);
    if (!known) problems.push(`${at}.format: one of ${FORMAT_NAMES.join(", ")}`);
    const feeds = str("feeds");
    if (known && (!feeds || !FORMATS[format].targets.includes(feeds))) {
      problems.push(`${at}.feeds: for format ${format}, one of ${FORMATS[format].targets.join(", ")}`);
    }
    const licence = str("licence");
    if (!licence) problems.push(`${at}.licence: say under which terms the data may be used`);
    const requires = s.requires ?? [];
    if (!Array.isArray(requires) || requires.some((r) => typeof r !== "string")) problems.push(`${at}.requires: a list of environment variable names`);
    const headers = s.headers ?? {};
    if (typeof headers !== "object" || Array.isArray(headers) || Object.values(headers as object).some((v) => typeof v !== "string")) {
      problems.push(`${at}.headers: an object of header names to strings`);
    }
    const supersedes = s.supersedes ?? [];
    if (!Array.isArray(supersedes) || supersedes.some((r) => typeof r !== "string")) problems.push(`${at}.supersedes: a list of source names`);
    if (name && url && format && feeds && licence) {
      sources.push({ name, url, format, feeds, licence, requires: requires as string[], headers: headers as Record<string, string>, supersedes: supersedes as string[] });
    }
  });
  for (const source of sources) {
    const at = `${file}: source "${source.name}": supersedes`;
    for (const other of source.supersedes) {
      const target = sources.find((s) => s.name === other);
      if (!target) problems.push(`${at}: no source is named "${other}"`);
      else if (target.format !== source.format) problems.push(`${at}: "${other}" is of format ${target.format}, not ${source.format}`);
    }
  }
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
