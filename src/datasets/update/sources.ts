import { parseDuration } from "../../time/duration.ts";
import { COUNTER_NAMES } from "../../ip/verdict/report-counting.ts";
import { FORMAT_NAMES, FORMATS, IP_FORMATS, type SourceFormat } from "./formats/index.ts";

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
  /** For a list that feeds a counter: reports one listing counts as (times its own count). */
  readonly weight: number;
  /**
   * For a list that feeds a counter, or a disposable-domain list: the lists whose entries it copies, so its listing of
   * what they list is no second witness.
   */
  readonly includes: readonly string[];
  /** For a disposable-domain list: whether it asks for evidence before listing a domain. */
  readonly verifies: boolean;
  /** For a free-provider list: it names only widely used providers (a popularity rank), so its listing outweighs one disposable list's. */
  readonly popular: boolean;
  /** How often the publisher renews the data, in ms; older data is reported stale. Null: no expectation. */
  readonly cadenceMs: number | null;
  /** For a list of benign infrastructure, its class in CrowdSec's style: "seo:googlebot", "cloud:aws", "relay:icloud". */
  readonly class: string | null;
  /**
   * For a disposable-domain list: `full` (the default) when a name it deletes was a mistake,
   * `rolling` when it publishes only what is current (a top list) and a name leaves it
   * because abuse moved elsewhere; a rolling list's names are remembered for `retentionMs`.
   */
  readonly kind: SourceKind;
  /** For a rolling list: how long a name stays disposable after the list last carried it, in ms. */
  readonly retentionMs: number;
}

export const SOURCE_KINDS = ["full", "rolling"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
/** A rolling list's names are remembered a year by default: fakefilter keeps a name that long after its last sighting. */
export const DEFAULT_RETENTION = "365d";

export class SourcesError extends Error {}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const CLASS = /^[a-z]+:[a-z0-9_.-]{1,40}$/;
/**
 * The environment variables a sources file may read: those named for sources, and
 * MaxMind's account variables. Anything else (RISKCHECK_ADMIN_PASSWORD, the database URL,
 * cloud credentials) would be sent to whichever host a source names.
 */
const SOURCE_VARIABLE = /^(RISKCHECK_SOURCE|MAXMIND)_[A-Z0-9_]+$/;
const SOURCE_VARIABLES_HINT = "only RISKCHECK_SOURCE_… and MAXMIND_… variables are read";
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
  for (const [i, raw] of list.entries()) {
    const at = `${file}: sources[${i}]`;
    if (raw === null || typeof raw !== "object") {
      problems.push(`${at}: expected an object`);
      continue;
    }
    const s = raw as Record<string, unknown>;
    const str = (field: string) => (typeof s[field] === "string" && s[field] !== "" ? (s[field] as string) : null);
    const name = str("name");
    if (!name || !NAME.test(name))
      problems.push(`${at}.name: lower-case letters, digits and dashes, e.g. "firehol-level1"`);
    else if (names.has(name)) problems.push(`${at}.name: "${name}" appears twice`);
    else names.add(name);
    const url = str("url");
    if (!url || !(/^(https?|file):\/\//.test(url) || NPM_URL.test(url)))
      problems.push(`${at}.url: an https://, http:// or file:// URL, or npm:<package>/<file>`);
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
    if (!Array.isArray(requires) || requires.some((r) => typeof r !== "string"))
      problems.push(`${at}.requires: a list of environment variable names`);
    else
      for (const name of requires as string[])
        if (!SOURCE_VARIABLE.test(name))
          problems.push(`${at}.requires: ${name} is not a variable a source may read; ${SOURCE_VARIABLES_HINT}`);
    for (const [field, text] of [
      ["url", url],
      ...Object.entries(typeof s.headers === "object" && s.headers !== null ? s.headers : {}).map(([k, v]) => [
        `headers.${k}`,
        v,
      ]),
    ]) {
      for (const name of variablesIn(typeof text === "string" ? text : "")) {
        if (!SOURCE_VARIABLE.test(name))
          problems.push(`${at}.${field}: \${${name}} is not a variable a source may read; ${SOURCE_VARIABLES_HINT}`);
      }
    }
    const headers = s.headers ?? {};
    if (
      typeof headers !== "object" ||
      Array.isArray(headers) ||
      Object.values(headers as object).some((v) => typeof v !== "string")
    ) {
      problems.push(`${at}.headers: an object of header names to strings`);
    }
    const nameList = (field: string) => {
      const list = s[field] ?? [];
      if (Array.isArray(list) && list.every((r) => typeof r === "string")) return list as string[];
      problems.push(`${at}.${field}: a list of source names`);
      return [];
    };
    const supersedes = nameList("supersedes");
    const includes = nameList("includes");
    const weight = s.weight ?? 1;
    if (!Number.isInteger(weight) || (weight as number) < 0 || (weight as number) > 100)
      problems.push(`${at}.weight: a whole number of reports from 0 to 100`);
    const disposableList = feeds === "disposable" || feeds === "disposable-wildcard";
    if (s.weight !== undefined && feeds && !(COUNTER_NAMES as readonly string[]).includes(feeds)) {
      problems.push(`${at}: weight applies to lists that feed a counter (${COUNTER_NAMES.join(", ")})`);
    }
    if (includes.length && feeds && !disposableList && !(COUNTER_NAMES as readonly string[]).includes(feeds)) {
      problems.push(
        `${at}: includes applies to lists that feed a counter (${COUNTER_NAMES.join(", ")}) or disposable domains`,
      );
    }
    const verifies = s.verifies ?? false;
    if (typeof verifies !== "boolean") problems.push(`${at}.verifies: true or false`);
    else if (verifies && !disposableList) problems.push(`${at}.verifies: applies to disposable-domain lists`);
    const popular = s.popular ?? false;
    if (typeof popular !== "boolean") problems.push(`${at}.popular: true or false`);
    else if (popular && feeds !== "free") problems.push(`${at}.popular: applies to free-provider lists`);
    const infrastructureClass = s.class ?? null;
    if (infrastructureClass !== null && (typeof infrastructureClass !== "string" || !CLASS.test(infrastructureClass)))
      problems.push(`${at}.class: a benign class such as "seo:googlebot", "cloud:aws", "relay:icloud"`);
    else if (infrastructureClass !== null && known && !IP_FORMATS.has(format))
      problems.push(`${at}.class: only IP lists name a class of infrastructure`);
    const cadence = s.cadence === undefined ? null : typeof s.cadence === "string" ? parseDuration(s.cadence) : null;
    if (s.cadence !== undefined && cadence === null)
      problems.push(`${at}.cadence: how often the data is renewed, e.g. "1d", "12h"`);
    const kind = (s.kind ?? "full") as SourceKind;
    if (!SOURCE_KINDS.includes(kind)) problems.push(`${at}.kind: one of ${SOURCE_KINDS.join(", ")}`);
    else if (kind === "rolling" && feeds && !disposableList)
      problems.push(`${at}.kind: only disposable-domain lists are rolling`);
    const retention = typeof s.retention === "string" ? parseDuration(s.retention) : null;
    if (s.retention !== undefined && (retention === null || retention <= 0))
      problems.push(`${at}.retention: how long a name is remembered, e.g. "365d", "90d"`);
    else if (s.retention !== undefined && kind !== "rolling")
      problems.push(`${at}.retention: applies to rolling lists (kind "rolling")`);
    if (name && url && format && feeds && licence) {
      sources.push({
        name,
        url,
        format,
        feeds,
        licence,
        requires: requires as string[],
        headers: headers as Record<string, string>,
        supersedes,
        weight: weight as number,
        includes,
        verifies: verifies === true,
        popular: popular === true,
        cadenceMs: cadence,
        class: infrastructureClass as string | null,
        kind,
        retentionMs: retention ?? parseDuration(DEFAULT_RETENTION)!,
      });
    }
  }
  for (const source of sources) {
    const at = `${file}: source "${source.name}": supersedes`;
    for (const other of source.supersedes) {
      const target = sources.find((s) => s.name === other);
      if (!target) problems.push(`${at}: no source is named "${other}"`);
      else if (target.format !== source.format)
        problems.push(`${at}: "${other}" is of format ${target.format}, not ${source.format}`);
    }
  }
  const cycle = includesCycle(sources);
  if (cycle) problems.push(`${file}: includes form a cycle: ${cycle.join(" → ")}`);
  if (problems.length) throw new SourcesError(problems.join("\n"));
  return sources;
}

/** A chain of `includes` that comes back to where it started, or null. */
function includesCycle(sources: readonly Source[]): string[] | null {
  const byName = new Map(sources.map((s) => [s.name, s]));
  const walk = (name: string, path: string[]): string[] | null => {
    if (path.includes(name)) return [...path.slice(path.indexOf(name)), name];
    for (const next of byName.get(name)?.includes ?? []) {
      const found = walk(next, [...path, name]);
      if (found) return found;
    }
    return null;
  };
  for (const source of sources) {
    const found = walk(source.name, []);
    if (found) return found;
  }
  return null;
}

function variablesIn(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]);
}

/** `${VAR}` from the environment; null when a variable is missing or is not one sources may read. */
export function expand(text: string, env: Record<string, string | undefined>): string | null {
  let missing = false;
  const out = text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const value = SOURCE_VARIABLE.test(name) ? env[name] : undefined;
    if (value === undefined || value === "") missing = true;
    return value ?? "";
  });
  return missing ? null : out;
}
