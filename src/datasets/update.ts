import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseDomainListText } from "../email/domain-lists.ts";
import { type AsnRange, compileAsnIndex } from "../ip/asn-index.ts";
import { openMmdb } from "../ip/mmdb.ts";
import { kindBit } from "../ip/network-kinds.ts";
import { encodeIndexFile } from "../ip/range-index-file.ts";
import { COUNTER_NAMES, type CounterName, FLAG, ReputationIndexBuilder } from "../ip/reputation-index.ts";
import type { Thresholds } from "../ip/reputation.ts";
import { parseAsnCsv } from "./asn-csv.ts";
import { clipSpecialPurpose } from "./clip-special-purpose.ts";
import { parseAsnList } from "./curated-lists.ts";
import { dataFiles, versionFiles } from "./data-layout.ts";
import { type Progress, download, redactUrl } from "./download.ts";
import { parseAddressList } from "./formats/address-list.ts";
import type { ParsedFeed } from "./formats/feed-entry.ts";
import { parsePrefixJson } from "./formats/prefix-json.ts";
import { loadSnapshot } from "./load-snapshot.ts";
import { type Manifest, type SourceRecord, readManifest, writeManifest } from "./manifest.ts";
import { type Source, expand, parseSources } from "./sources.ts";
import { activateVersion, newVersionName } from "./versions.ts";

export interface UpdateOptions {
  readonly dataDir: string;
  readonly sourcesFile?: string;
  readonly only?: readonly string[];
  /** Accept lists that are empty or shrank more than `maxShrink`. */
  readonly force: boolean;
  /** Largest accepted loss of entries against the previous download, as a fraction. */
  readonly maxShrink: number;
  readonly thresholds: Thresholds;
  readonly env: Record<string, string | undefined>;
  readonly progress: (name: string) => Progress;
}

export type Outcome = "updated" | "unchanged" | "skipped" | "failed";

export interface SourceOutcome {
  readonly name: string;
  readonly outcome: Outcome;
  readonly entries?: number;
  readonly detail: string;
}

export interface UpdateReport {
  readonly outcomes: SourceOutcome[];
  /** The version made current, or null when nothing changed. */
  readonly version: string | null;
  /** Feed entries cut to their global-unicast part, or dropped, at ingest. */
  readonly clipped: number;
}

/**
 * Downloads every source that changed, checks it, compiles the datasets into a
 * staging copy of the current version and swaps that in. A source that fails keeps
 * its previous data; the others go ahead.
 */
export async function runUpdate(options: UpdateOptions): Promise<UpdateReport> {
  const files = dataFiles(options.dataDir);
  const sourcesFile = options.sourcesFile ?? files.sources;
  const sources = parseSources(await Bun.file(sourcesFile).text(), sourcesFile);
  const unknown = (options.only ?? []).filter((name) => !sources.some((s) => s.name === name));
  if (unknown.length) throw new Error(`${sourcesFile}: no source named ${unknown.join(", ")}`);
  const manifest = await readManifest(files.manifest);
  if (!manifest) throw new Error(`${files.current}: no current dataset version; run "npm install" (bundled data) first`);

  const version = newVersionName("update");
  const staging = join(files.versions, `.staging-${version}`);
  const out = versionFiles(staging);
  linkTree(files.current, staging);
  mkdirSync(out.raw, { recursive: true });

  const records: Record<string, SourceRecord> = { ...manifest.sources };
  const outcomes: SourceOutcome[] = [];
  const changed = new Set<Source>();
  for (const source of sources) {
    if (options.only?.length && !options.only.includes(source.name)) continue;
    const missing = source.requires.filter((v) => !options.env[v]);
    if (missing.length) {
      outcomes.push({ name: source.name, outcome: "skipped", detail: `needs ${missing.join(", ")} in the environment` });
      continue;
    }
    const url = expand(source.url, options.env);
    const headers = Object.fromEntries(Object.entries(source.headers).map(([k, v]) => [k, expand(v, options.env) ?? ""]));
    const previous = records[source.name];
    if (url === null) {
      outcomes.push({ name: source.name, outcome: "failed", detail: "its URL names an environment variable that is not set; list it in requires" });
      continue;
    }
    try {
      const fetched = await download(url, headers, previous?.raw ? previous : {}, options.progress(source.name));
      if (!fetched.changed) {
        outcomes.push({ name: source.name, outcome: "unchanged", entries: previous?.entries, detail: "not modified since the last download" });
        continue;
      }
      const bytes = await unpack(fetched.bytes);
      const candidate = join(out.raw, `${source.name}.new`);
      writeFileSync(candidate, bytes);
      let entries: number;
      try {
        entries = await verify(source, candidate, bytes, previous?.entries, options);
      } catch (err) {
        rmSync(candidate, { force: true });
        throw err;
      }
      // Renamed over the previous download, which the current version keeps through its own link.
      renameSync(candidate, join(out.raw, source.name));
      records[source.name] = {
        origin: redactUrl(source.url),
        fetchedAt: new Date().toISOString(),
        etag: fetched.etag,
        lastModified: fetched.lastModified,
        entries,
        bytes: bytes.byteLength,
        licence: source.licence,
        raw: source.name,
      };
      changed.add(source);
      outcomes.push({ name: source.name, outcome: "updated", entries, detail: `${bytes.byteLength} bytes` });
    } catch (err) {
      // The previous download is still in raw/, so the source's data stays as it was.
      outcomes.push({ name: source.name, outcome: "failed", detail: (err as Error).message.split("\n")[0] });
    }
  }

  if (changed.size === 0) {
    rmSync(staging, { recursive: true, force: true });
    return { outcomes, version: null, clipped: 0 };
  }
  let clipped = 0;
  try {
    clipped = await compile(sources, changed, records, out);
    await writeManifest(out.manifest, { version, created: new Date().toISOString(), sources: records } satisfies Manifest);
    // The whole version must load before anyone is pointed at it.
    await loadSnapshot(options.dataDir, options.thresholds, staging);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`the new dataset version was not installed: ${(err as Error).message}`);
  }
  renameSync(staging, join(files.versions, version));
  activateVersion(options.dataDir, version);
  return { outcomes, version, clipped };
}

const IP_FEEDS = new Set(["address-list", "prefix-json"]);

/** Rebuilds every output that a changed source feeds, from all sources that feed it. */
async function compile(sources: readonly Source[], changed: ReadonlySet<Source>, records: Record<string, SourceRecord>, out: ReturnType<typeof versionFiles>): Promise<number> {
  const raw = (s: Source) => join(out.raw, s.name);
  const has = (s: Source) => records[s.name]?.raw !== undefined && existsSync(raw(s));
  const touched = (pick: (s: Source) => boolean) => [...changed].some(pick);
  let clipped = 0;

  for (const source of changed) {
    if (source.format !== "mmdb") continue;
    const targets = { city: [out.cityV4, out.cityV6], "city-ipv4": [out.cityV4], "city-ipv6": [out.cityV6], country: [out.country], "asn-isp": [out.asnIsp] }[source.feeds] ?? [];
    for (const target of targets) replaceWithCopy(target, raw(source));
  }

  const asnSources = sources.filter((s) => s.format === "asn-csv");
  if (touched((s) => s.format === "asn-csv") && asnSources.every(has)) {
    const rows = function* (): Generator<AsnRange> {
      // Global IPv6 space lies far above 2^32, so a row's family follows from its numbers.
      for (const s of asnSources) for (const row of parseAsnCsv(readFileSync(raw(s), "utf8"), raw(s))) yield { version: row.end > 0xffffffffn ? 6 : 4, ...row };
    };
    replaceFile(out.asnIndex, encodeIndexFile(compileAsnIndex(rows(), { built: new Date().toISOString(), sources: asnSources.map((s) => s.name) })));
  }

  for (const target of ["disposable", "disposable-wildcard", "free", "allow"] as const) {
    if (!touched((s) => s.format === "domain-list" && s.feeds === target)) continue;
    const domains = new Set<string>();
    for (const s of sources.filter((x) => x.format === "domain-list" && x.feeds === target && has(x))) {
      for (const d of parseDomainSource(await Bun.file(raw(s)).text())) domains.add(d);
    }
    const file = { disposable: out.disposableDomains, "disposable-wildcard": out.disposableWildcards, free: out.freeDomains, allow: out.feedAllowedDomains }[target];
    replaceFile(file, `# compiled by riskcheck update\n${[...domains].join("\n")}\n`);
  }

  if (touched((s) => IP_FEEDS.has(s.format))) {
    const builder = new ReputationIndexBuilder();
    for (const s of sources.filter((x) => IP_FEEDS.has(x.format) && has(x))) {
      const feed = clipSpecialPurpose(parseFeed(s, await Bun.file(raw(s)).text()).entries);
      clipped += feed.clipped;
      for (const e of feed.entries) builder.add(e.range.version, e.range.first, e.range.last, contribution(s, e.count));
    }
    replaceFile(out.reputationIndex, encodeIndexFile(builder.build({ built: new Date().toISOString() })));
  }

  if (touched((s) => s.format === "asn-list")) {
    const kinds: Record<string, number[]> = {};
    for (const s of sources.filter((x) => x.format === "asn-list" && has(x))) {
      (kinds[s.feeds] ??= []).push(...parseAsnList(await Bun.file(raw(s)).text(), raw(s)));
    }
    replaceFile(out.feedAsnKinds, JSON.stringify(kinds));
  }
  return clipped;
}

function contribution(source: Source, count: number) {
  if ((COUNTER_NAMES as readonly string[]).includes(source.feeds)) return { source: source.name, counters: { [source.feeds as CounterName]: count } };
  if (source.feeds === "confirmed-bad") return { source: source.name, flags: FLAG.confirmedBad };
  if (source.feeds === "verified-crawler") return { source: source.name, flags: FLAG.verifiedCrawler | kindBit("crawler") };
  return { source: source.name, flags: kindBit(source.feeds) };
}

function parseFeed(source: Source, text: string): ParsedFeed {
  return source.format === "prefix-json" ? parsePrefixJson(text) : parseAddressList(text);
}

/** A domain list as text (one a line) or as a JSON array of names. */
function parseDomainSource(text: string): string[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    const list = JSON.parse(trimmed) as unknown;
    if (!Array.isArray(list)) throw new Error("expected a JSON array of domain names");
    return list.filter((d): d is string => typeof d === "string");
  }
  return parseDomainListText(text);
}

/** Checks a download before it may replace anything; returns its entry count. */
async function verify(source: Source, rawFile: string, bytes: Uint8Array, previous: number | undefined, options: UpdateOptions): Promise<number> {
  if (source.format === "mmdb") {
    const mmdb = await openMmdb(rawFile);
    const probe = ["8.8.8.8", "1.1.1.1", "81.2.69.142", "2001:4860:4860::8888"].some((ip) => {
      try {
        return mmdb.reader.get(ip) !== null;
      } catch {
        return false;
      }
    });
    if (!probe) throw new Error("the database answers none of the probe addresses");
    return mmdb.reader.metadata.nodeCount;
  }
  const text = new TextDecoder().decode(bytes);
  let entries: number;
  let unreadable = 0;
  if (source.format === "domain-list") entries = parseDomainSource(text).length;
  else if (source.format === "asn-list") entries = parseAsnList(text, source.name).length;
  else if (source.format === "asn-csv") entries = [...parseAsnCsv(text, source.name)].length;
  else ({ entries: { length: entries }, unreadable } = parseFeed(source, text));
  if (entries === 0 && !options.force) throw new Error(`no entries${unreadable ? ` (${unreadable} unreadable lines)` : ""}; --force accepts an empty list`);
  if (previous !== undefined && entries < previous * (1 - options.maxShrink) && !options.force) {
    throw new Error(`shrank from ${previous} to ${entries} entries, more than ${Math.round(options.maxShrink * 100)} %; --force accepts it`);
  }
  return entries;
}

/** gzip and tar.gz (MaxMind's packaging) to the file inside; anything else unchanged. */
async function unpack(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const inflated = Bun.gunzipSync(bytes as Uint8Array<ArrayBuffer>);
  const isTar = new TextDecoder().decode(inflated.subarray(257, 262)) === "ustar";
  if (!isTar) return inflated;
  const members = [...(await new Bun.Archive(inflated).files()).entries()];
  const mmdb = members.find(([path]) => path.endsWith(".mmdb")) ?? members.sort((a, b) => b[1].size - a[1].size)[0];
  if (!mmdb) throw new Error("empty archive");
  return await mmdb[1].bytes();
}

/** Writes beside and renames over, so a hard link shared with another version is never written through. */
function replaceFile(path: string, data: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}

function replaceWithCopy(path: string, from: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}`;
  copyFileSync(from, temporary);
  renameSync(temporary, path);
}

/** A copy of a folder tree made of hard links (copies where linking is not possible). */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    if (statSync(source).isDirectory()) linkTree(source, target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
      }
    }
  }
}
