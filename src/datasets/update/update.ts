import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { DomainLists } from "../../email/domain-lists.ts";
import type { EvidenceRule } from "../../email/evidence-rule.ts";
import type { Thresholds } from "../../ip/verdict/reputation.ts";
import { dataFiles, versionFiles } from "../data-layout.ts";
import {
  type Fetched,
  type Progress,
  SourceTooLarge,
  SourceUnavailable,
  fetchSource,
  redactUrl,
} from "./fetch-source.ts";
import type { PackageFiles } from "./package-files.ts";
import { FORMATS, type FormatValues, IP_FORMATS, type IpFormat, type SourceFormat } from "./formats/index.ts";
import { ContentError, type ParsedSource } from "./formats/parsed-source.ts";
import { loadEmailLists, writeVersionEvidencePack } from "../load-email-lists.ts";
import { type LoadReport, loadSnapshot } from "../load-snapshot.ts";
import { prepareEmailPart } from "../prepare-email.ts";
import { type Manifest, type OutputRecord, type SourceRecord, readManifest, writeManifest } from "../manifest.ts";
import { clipSpecialPurpose } from "./clip-special-purpose.ts";
import { compileVersionTables } from "../compiled-tables.ts";
import { composeEvidence } from "./evidence.ts";
import { checkDisputedNames } from "./disputed-names.ts";
import { DISPUTE, type DisputedNames, type ListMemory, memoryExpires } from "./email-evidence.ts";
import { type ShrinkCheck, shrinkRefusals } from "./output-guard.ts";
import { OUTPUTS, OUTPUT_NAMES, type OutputInput, type OutputName } from "./outputs.ts";
import { type Source, expand, parseSources } from "./sources.ts";
import { linkOrCopy, writeFileAtomically } from "../staged-files.ts";
import { activateVersion, currentVersion, newVersionName, withUpdateLock } from "../versions.ts";
import type { SourceOutcome } from "./source-outcome.ts";
import { type MailServerResolution, type MailServersReport, resolveMailServers } from "./mail-servers.ts";
import { mailServersText, parseMailServersFile } from "../mail-servers-file.ts";

export interface UpdateOptions {
  readonly dataDir: string;
  readonly sourcesFile?: string;
  readonly only?: readonly string[];
  /** Accept shrinking or empty data, and rebuild every output even when no source changed. */
  readonly force: boolean;
  /**
   * Largest accepted loss of entries, as a fraction, of a source against its last download and of an output against
   * the current version.
   */
  readonly maxShrink: number;
  /** Versions kept: the new one and those it was built on. */
  readonly keepVersions: number;
  readonly thresholds: Thresholds;
  /** The evidence rule `serve` applies (RISKCHECK_EMAIL_EVIDENCE): the version's served email lists are made under it. */
  readonly emailRule: EvidenceRule;
  readonly env: Record<string, string | undefined>;
  readonly progress: (name: string) => Progress;
  /** Where npm: sources are read from (node_modules, or the binary's own); null when none is at hand. */
  readonly packages: PackageFiles | null;
  /** A name for the kind of version made ("update", "bundled", "refresh"). */
  readonly tag?: string;
  /** The update's clock, for a replay of past days (bench/castle-replay.ts); default the current time. */
  readonly now?: Date;
  /** Where the first bytes of a refused download go, escaped, so a moved file shows what it became; never into the report. */
  readonly log?: (line: string) => void;
  /** With DNS evidence on: the resolver and the bounds within which the known disposable domains' mail servers are resolved. */
  readonly mailServers?: MailServerResolution | null;
}

/** How much of a refused download the log shows. */
const REFUSED_HEAD_BYTES = 200;

export interface OutputChange {
  readonly name: OutputName;
  readonly before: number | null;
  readonly after: number | null;
  readonly sources: readonly string[];
  readonly rebuilt: boolean;
  readonly note?: string;
}

export interface UpdateReport {
  readonly outcomes: readonly SourceOutcome[];
  readonly outputs: readonly OutputChange[];
  /** The version made current, or null when nothing changed or the swap was refused. */
  readonly version: string | null;
  /** Why the new version was not installed: one line per output that would shrink too much. */
  readonly refused: readonly string[];
  /** Versions removed because they fell out of the kept history. */
  readonly pruned: readonly string[];
  /** Sources fetched or confirmed (a 304) over the network, npm: packages not counted: 0 when every download failed. */
  readonly reached: number;
  /** New disposable names that contradict what else is known, and those the allowlist overrules; null when no version was built. */
  readonly disputed?: DisputedNames;
  /** What each rolling disposable list remembers of the names it no longer carries. */
  readonly memory?: readonly ListMemory[];
  /** With DNS evidence on: what was resolved of the disposable domains' mail servers, and the table made of it. */
  readonly mailServers?: MailServersReport;
}

/**
 * The most IP-list entries (every IP format's sources together) one update composes, so
 * that `update` stays under 1 GB. Measured peaks (bench/update-memory.ts: the real feed
 * snapshots and synthetic lists; a relay geofeed costs most, its rows carry places and
 * 40 % are IPv6): the default sources with a 300,000-row iCloud geofeed, 575,000 entries,
 * ~500 MB (the email lists' check sets that); 1,200,000 entries of which 700,000 geofeed
 * rows 788 MB, of plain lists 672 MB; 1,700,000 entries 947 MB.
 */
export const MAX_IP_LIST_ENTRIES = 1_200_000;

const isIpList = (source: Source) => IP_FORMATS.has(source.format);
const isIpInput = (input: OutputInput) => IP_FORMATS.has(input.format);

/** The outputs that decide which of the free lists' names are served as free. */
const SERVED_FREE_INPUTS: readonly OutputName[] = [
  "free-domains",
  "disposable-domains",
  "disposable-wildcards",
  "allowed-domains",
];

/**
 * An allowlist names a few wrongly flagged domains; one that un-flags more than this share
 * of the disposable names is a list of another kind (a block list at the allowlist's URL).
 */
const MAX_ALLOWLISTED_SHARE = 0.01;

/** The refusal of an allowlist that would un-flag more than MAX_ALLOWLISTED_SHARE of the disposable names, or null. */
function allowlistRefusal(lists: DomainLists, sources: readonly string[]): string | null {
  let unflagged = 0;
  for (const name of lists.allow) if (lists.disposable.has(name) || lists.disposableWildcard.has(name)) unflagged++;
  const listed = lists.disposable.size + lists.disposableWildcard.size;
  if (unflagged <= listed * MAX_ALLOWLISTED_SHARE) return null;
  const share = Math.round((unflagged / listed) * 100);
  return (
    `the allowlists would un-flag ${unflagged} of the ${listed} disposable names (${share} %, more than ` +
    `${MAX_ALLOWLISTED_SHARE * 100} %); their sources: ${[...sources, "the operator's allowlist"].join(", ")}. An ` +
    `allowlist names a few wrongly listed domains: check that each serves one, or accept with --force`
  );
}

/** A source's data in the version being built. */
interface Held {
  readonly source: Source;
  readonly record: SourceRecord;
  /** New data, or the same data feeding something else: outputs it feeds are rebuilt. */
  readonly changed: boolean;
  parsed?: ParsedSource<unknown>;
  /** An IP list's entries cut to public space, as the outputs and its evidence read them. */
  ipEntries?: ReturnType<OutputInput["ipEntries"]>;
}

/**
 * Downloads every declared source that changed, checks each by content, composes every
 * output from all the sources that feed it (downloads and bundled packages alike) into
 * a staging version, refuses a swap that would shrink an output too far, loads the
 * staged version completely, and only then makes it current. A source that fails keeps
 * its last good data; the others go ahead.
 */
export async function runUpdate(options: UpdateOptions): Promise<UpdateReport> {
  const files = dataFiles(options.dataDir);
  const sourcesFile = options.sourcesFile ?? files.sources;
  const sources = parseSources(
    await readSourcesFile(sourcesFile, resolve(sourcesFile) === resolve(files.sources)),
    sourcesFile,
  );
  const unknown = (options.only ?? []).filter((name) => !sources.some((s) => s.name === name));
  if (unknown.length) throw new Error(`${sourcesFile}: no source named ${unknown.join(", ")}`);
  try {
    return await withUpdateLock(options.dataDir, () => build(sources, options));
  } catch (err) {
    throw isDiskFull(err) ? diskFullError(options.dataDir, err as Error) : err;
  }
}

function isDiskFull(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === "ENOSPC" || e?.code === "SQLITE_FULL" || e?.code === "EDQUOT";
}

/** What to do about a full disk, instead of a bare ENOSPC. */
function diskFullError(dataDir: string, err: Error): Error {
  return new Error(
    `${dataDir}: the disk is full (${err.message}); nothing was installed and the current data keeps serving. ` +
      `Free some space there (or keep fewer dataset versions: --keep-versions / RISKCHECK_KEEP_VERSIONS) and run ` +
      `the update again`,
  );
}

/** The sources file's text; a file that cannot be read is named with the settings that chose it, not a bare errno. */
async function readSourcesFile(file: string, inDataDir: boolean): Promise<string> {
  try {
    return await Bun.file(file).text();
  } catch (err) {
    const code = (err as { code?: string }).code;
    const reason =
      code === "ENOENT"
        ? "no such file"
        : code === "ENOTDIR"
          ? "a part of the path is not a directory"
          : code === "EISDIR"
            ? "a directory, not a file"
            : (err as Error).message;
    const fix = inDataDir
      ? "point --data-dir / RISKCHECK_DATA_DIR at the data directory, or --sources / RISKCHECK_SOURCES at a sources file"
      : "point --sources / RISKCHECK_SOURCES at a sources file";
    throw new Error(`${file}: cannot read the sources file (${reason}); ${fix}`);
  }
}

async function build(sources: readonly Source[], options: UpdateOptions): Promise<UpdateReport> {
  const files = dataFiles(options.dataDir);
  const currentName = currentVersion(options.dataDir);
  const currentRoot = currentName ? join(files.versions, currentName) : null;
  const current = currentRoot ? await readManifest(versionFiles(currentRoot).manifest) : null;
  const now = options.now ?? new Date();
  const version = newVersionName(options.tag ?? "update", now);
  const staging = join(files.versions, `.staging-${version}`);
  const out = versionFiles(staging);
  mkdirSync(out.raw, { recursive: true });
  try {
    const { held, outcomes } = await gatherSources(sources, current, currentRoot, out.raw, options, now);
    const fromNetwork = new Set(sources.filter((s) => !s.url.startsWith("npm:")).map((s) => s.name));
    const reached = outcomes.filter(
      (o) => (o.outcome === "updated" || o.outcome === "unchanged") && fromNetwork.has(o.name),
    ).length;
    // Records without data are those of older riskcheck versions' bundled packages.
    for (const [name, record] of Object.entries(current?.sources ?? {})) {
      if (record.raw !== undefined && !sources.some((s) => s.name === name))
        outcomes.push({
          name,
          outcome: "removed",
          detail: "no longer in the sources file; its data leaves every output",
        });
    }
    // The one report of every exit: what became of the sources, and how far the version got.
    const report = (
      got: Pick<UpdateReport, "outputs"> &
        Partial<Pick<UpdateReport, "version" | "refused" | "pruned" | "disputed" | "memory" | "mailServers">>,
    ): UpdateReport => ({
      outcomes,
      version: null,
      refused: [],
      pruned: [],
      reached,
      ...got,
    });
    const nowSeconds = Math.floor(now.getTime() / 1000);
    // A rolling list's remembered name past its retention is forgotten on the day, even if no source changed.
    const forgets = (h: Held) =>
      h.source.kind === "rolling" &&
      currentRoot !== null &&
      memoryExpires(
        join(versionFiles(currentRoot).emailEvidence, `${h.source.name}.txt`),
        nowSeconds,
        h.source.retentionMs / 1000,
      );
    const previousMailServers = currentRoot === null ? null : versionFiles(currentRoot).mailServers;
    const anyChange =
      !current ||
      outcomes.some((o) => o.outcome === "updated" || o.outcome === "removed") ||
      [...held.values()].some((h) => h.changed || forgets(h)) ||
      // DNS evidence just switched on: the version gets its table of mail servers.
      (options.mailServers != null && !existsSync(previousMailServers!));
    if (!anyChange && !options.force) return report({ outputs: [] });

    const outputs = composeOutputs(sources, held, current, currentRoot, out, options.force, now.toISOString());
    const ipLists = outputs.inputsOf["reputation-index"].map((input) => ({
      input,
      changed: options.force || held.get(input.name)!.changed,
    }));
    await composeEvidence(ipLists, currentRoot && versionFiles(currentRoot).evidence, out.evidence, nowSeconds);
    // Every source is folded into the outputs: loading the staged version needs that memory.
    for (const h of held.values()) {
      h.parsed = undefined;
      h.ipEntries = undefined;
    }
    Bun.gc(true);
    const disputed = await checkDisputedNames({
      inputsOf: outputs.inputsOf,
      held,
      force: options.force,
      currentRoot,
      out,
      dataDir: options.dataDir,
      nowSeconds,
      previousChecks: new Map(Object.entries(current?.sources ?? {}).map(([name, r]) => [name, r.checkedAt])),
    });
    const checks: ShrinkCheck[] = OUTPUT_NAMES.map((name) => ({
      name,
      before: current?.outputs[name] ?? null,
      after: outputs.records[name] ?? null,
    }));
    const guard = { outcomes, previous: current?.sources ?? {} };
    const refused = options.force ? [] : shrinkRefusals(checks, options.maxShrink, guard);
    const changes = outputs.changes;
    if (refused.length) return report({ outputs: changes, refused });
    // The free set served is what the disposable lists and the allowlist leave of the free
    // lists: a disposable list that carries gmail.com empties it while every list grows.
    const freeInputsChanged = changes.some((c) => c.rebuilt && SERVED_FREE_INPUTS.includes(c.name));
    const servedFreeBefore =
      !options.force && currentRoot && freeInputsChanged
        ? (await loadEmailLists(options.dataDir, currentRoot)).free.kept
        : null;

    // What `serve` maps instead of decoding every MMDB record at each load; this also checks every record.
    const rebuilt = new Set<string>(changes.filter((c) => c.rebuilt).map((c) => c.name));
    const manifest: Manifest = {
      version,
      created: now.toISOString(),
      base: currentName,
      sources: Object.fromEntries([...held].map(([name, h]) => [name, h.record])),
      outputs: await compileVersionTables(
        staging,
        outputs.records,
        rebuilt,
        current && currentRoot ? { root: currentRoot, manifest: current } : null,
      ),
    };
    writeManifest(out.manifest, manifest);
    // The table of mail servers stays with the lists, DNS evidence on or off; an update with it on resolves more below.
    if (previousMailServers !== null && existsSync(previousMailServers))
      linkOrCopy(previousMailServers, out.mailServers);
    // What `serve` reads instead of parsing, packing and weighing every disposable list at each load.
    await writeVersionEvidencePack(staging);
    let staged: LoadReport;
    try {
      // The whole version must load before anyone is pointed at it.
      Bun.gc(true);
      staged = await loadSnapshot(options.dataDir, options.thresholds, { root: staging, emailRule: options.emailRule });
    } catch (err) {
      throw new Error(`the new dataset version was not installed: ${(err as Error).message}`);
    }
    if (servedFreeBefore !== null) {
      const served = (records: Readonly<Record<string, OutputRecord>>, count: number): OutputRecord => ({
        count,
        sources: [...new Set(SERVED_FREE_INPUTS.flatMap((o) => records[o]?.sources ?? []))],
      });
      // Held-back names stay free only until an operator settles them: the guard counts them as gone.
      const freeHeldBack = disputed.heldBack.filter(
        (n) => n.why === DISPUTE.free || n.why === DISPUTE.popularFree,
      ).length;
      const check = {
        name: "free-domains as served",
        before: served(current?.outputs ?? {}, servedFreeBefore),
        after: served(outputs.records, staged.freeList.kept - freeHeldBack),
      };
      const servedRefused = shrinkRefusals([check], options.maxShrink, guard);
      if (servedRefused.length) return report({ outputs: changes, refused: servedRefused });
    }
    const allowRefused = options.force
      ? null
      : allowlistRefusal(staged.snapshot.email, outputs.records["allowed-domains"]?.sources ?? []);
    if (allowRefused) return report({ outputs: changes, refused: [allowRefused] });
    const mailServers = options.mailServers
      ? await compileMailServers(staged.snapshot.email, sources, out.mailServers, options.mailServers, nowSeconds)
      : undefined;
    // The staged load wrote what `serve` reads instead of making the email lists at each start; made again when the mail servers changed.
    if (mailServers) await prepareEmailPart(options.dataDir, staging, options.emailRule);
    renameSync(staging, join(files.versions, version));
    const pruned = await activateVersion(options.dataDir, version, options.keepVersions);
    const { memory, ...settled } = disputed;
    return report({ outputs: changes, version, pruned, disputed: settled, memory, mailServers });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Resolves the mail servers behind the disposable domains the staged version serves, on top of
 * what the previous version held (linked into `file`), and writes the table into the version.
 */
async function compileMailServers(
  lists: DomainLists,
  sources: readonly Source[],
  file: string,
  resolution: MailServerResolution,
  nowSeconds: number,
): Promise<MailServersReport> {
  const previous = existsSync(file) ? parseMailServersFile(readFileSync(file, "utf8")) : [];
  const rolling = new Set(sources.filter((s) => s.kind === "rolling").map((s) => s.name));
  const { observations, report } = await resolveMailServers(lists, rolling, previous, resolution, nowSeconds);
  writeFileAtomically(file, mailServersText(observations));
  return report;
}

/** Fetches and checks each selected source; every other declared source keeps the data it has. */
async function gatherSources(
  sources: readonly Source[],
  current: Manifest | null,
  currentRoot: string | null,
  rawDir: string,
  options: UpdateOptions,
  now: Date,
) {
  const held = new Map<string, Held>();
  const outcomes: SourceOutcome[] = [];
  const checkedAt = now.toISOString();
  // Every IP list's entries are held together while the reputation index is built.
  const ipEntries = new Map(sources.filter(isIpList).map((s) => [s.name, current?.sources[s.name]?.entries ?? 0]));
  const ipEntriesWith = (name: string, entries: number) =>
    [...ipEntries].reduce((sum, [n, e]) => sum + (n === name ? entries : e), 0);
  for (const source of sources) {
    const before = current?.sources[source.name];
    // Data of another format cannot stand in for this source's; data from another URL
    // can, until the new URL delivers, but is no measure for it.
    const previous =
      before && before.format === source.format && currentRoot && existsSync(join(currentRoot, "raw", before.raw))
        ? before
        : undefined;
    const comparable = previous?.url === redactUrl(source.url) ? previous : undefined;
    const keep = (confirmed: boolean) => {
      if (!previous) return;
      linkOrCopy(join(currentRoot!, "raw", previous.raw), join(rawDir, source.name));
      const record = {
        ...previous,
        ...declared(source),
        licence: source.licence,
        raw: source.name,
        ...(confirmed ? { checkedAt } : {}),
      };
      held.set(source.name, { source, record, changed: !sameDeclaration(previous, source) });
    };
    // The date of the data itself: a bundled list's is its package's release, not the install.
    const keeps = previous ? (previous.dataDate ?? previous.fetchedAt).slice(0, 10) : null;
    const kept = keeps ? `; keeps its data of ${keeps}` : "; it has no data yet";
    if (options.only?.length && !options.only.includes(source.name)) {
      keep(false);
      continue;
    }
    const missing = source.requires.filter((v) => !options.env[v]);
    const url = expand(source.url, options.env);
    if (missing.length || url === null) {
      keep(false);
      const why = missing.length
        ? `needs ${missing.join(", ")} in the environment`
        : "its URL names an environment variable that is not set; list it in requires";
      outcomes.push({
        name: source.name,
        outcome: missing.length ? "skipped" : "failed",
        detail: why + kept,
        problem: why,
        keeps,
      });
      continue;
    }
    let downloaded: Uint8Array | null = null;
    try {
      const headers = Object.fromEntries(
        Object.entries(source.headers).map(([k, v]) => [k, expand(v, options.env) ?? ""]),
      );
      const fetched = await fetchSource(
        url,
        headers,
        comparable ?? {},
        options.progress(source.name),
        options.packages,
        FORMATS[source.format].maxBytes,
      );
      if (!fetched.changed) {
        keep(true);
        outcomes.push({
          name: source.name,
          outcome: "unchanged",
          entries: comparable!.entries,
          dataDate: comparable!.dataDate,
          detail: "not modified since the last download",
        });
        continue;
      }
      downloaded = fetched.bytes;
      const parsed = FORMATS[source.format].parse(fetched.bytes, source.feeds);
      checkEntries(source, parsed.entries, comparable, ipEntriesWith(source.name, parsed.entries), options);
      if (isIpList(source)) ipEntries.set(source.name, parsed.entries);
      writeFileAtomically(join(rawDir, source.name), fetched.bytes);
      const record = fetchedRecord(source, fetched, parsed, checkedAt);
      held.set(source.name, { source, record, changed: true, parsed });
      outcomes.push({
        name: source.name,
        outcome: "updated",
        entries: parsed.entries,
        dataDate: record.dataDate,
        detail: `${fetched.bytes.byteLength} bytes${parsed.note ? `; ${parsed.note}` : ""}`,
      });
    } catch (err) {
      keep(false);
      const outcome = err instanceof SourceUnavailable ? "skipped" : "failed";
      const reason =
        err instanceof ContentError
          ? `refused: ${err.message}`
          : isDiskFull(err)
            ? "the disk is full"
            : (err as Error).message.split("\n")[0];
      if (err instanceof ContentError && downloaded) {
        const head = new TextDecoder().decode(downloaded.subarray(0, REFUSED_HEAD_BYTES));
        options.log?.(
          `update: ${source.name}: refused download (${downloaded.byteLength} bytes) begins ${JSON.stringify(head)}`,
        );
      }
      outcomes.push({ name: source.name, outcome, detail: reason + kept, problem: reason, keeps });
    }
  }
  return { held, outcomes };
}

/**
 * A download's entries as update takes them: some (unless forced), within what one update
 * holds of IP lists (`ipListEntries`: all of them with this one), and not shrunk past
 * --max-shrink since the same URL's last data (unless forced).
 */
function checkEntries(
  source: Source,
  entries: number,
  comparable: SourceRecord | undefined,
  ipListEntries: number,
  options: UpdateOptions,
): void {
  if (entries === 0 && !options.force) throw new ContentError("has no entries; --force accepts an empty list");
  if (isIpList(source) && ipListEntries > MAX_IP_LIST_ENTRIES) {
    throw new SourceTooLarge(
      `its ${entries} entries would bring the IP lists to ${ipListEntries}, more than the ${MAX_IP_LIST_ENTRIES} ` +
        `one update holds within its memory bound`,
    );
  }
  if (comparable && entries < comparable.entries * (1 - options.maxShrink) && !options.force) {
    throw new ContentError(
      `shrank from ${comparable.entries} to ${entries} entries, more than --max-shrink ${options.maxShrink}; --force accepts it`,
    );
  }
}

/** The manifest's record of a source just downloaded and accepted. */
function fetchedRecord(
  source: Source,
  fetched: Extract<Fetched, { changed: true }>,
  parsed: ParsedSource<unknown>,
  checkedAt: string,
): SourceRecord {
  const date = parsed.dataDate ? { at: parsed.dataDate, from: "content" as const } : fetched.date;
  return {
    origin: source.url.startsWith("npm:")
      ? `npm ${source.url.slice(4)} ${fetched.packageVersion}`
      : redactUrl(source.url),
    url: redactUrl(source.url),
    format: source.format,
    ...declared(source),
    licence: source.licence,
    fetchedAt: checkedAt,
    checkedAt,
    dataDate: date?.at ?? null,
    dataDateFrom: date?.from ?? null,
    etag: fetched.etag,
    lastModified: fetched.lastModified,
    packageVersion: fetched.packageVersion,
    entries: parsed.entries,
    bytes: fetched.bytes.byteLength,
    raw: source.name,
  };
}

/** Builds the outputs whose sources changed and links the others from the current version. */
function composeOutputs(
  sources: readonly Source[],
  held: Map<string, Held>,
  current: Manifest | null,
  currentRoot: string | null,
  out: ReturnType<typeof versionFiles>,
  force: boolean,
  built: string,
) {
  // A newer copy of a dataset that has data replaces the copy it supersedes.
  const superseded = new Set(sources.filter((s) => held.has(s.name)).flatMap((s) => s.supersedes));
  const records: Record<string, OutputRecord> = {};
  const changes: OutputChange[] = [];
  const inputsOf = {} as Record<OutputName, OutputInput[]>;
  for (const name of OUTPUT_NAMES) {
    const spec = OUTPUTS[name];
    const feeding = sources
      .filter((s) => held.has(s.name) && !superseded.has(s.name) && spec.fedBy(s.format, s.feeds))
      .map((s) => inputOf(held.get(s.name)!, out.raw));
    const inputs = spec.select ? spec.select(feeding) : feeding;
    inputsOf[name] = [...inputs];
    const names = inputs.map((i) => i.name);
    const before = current?.outputs[name];
    const target = out[spec.file];
    const currentFile = currentRoot && versionFiles(currentRoot)[spec.file];
    const unchanged =
      !force &&
      before &&
      currentFile &&
      existsSync(currentFile) &&
      sameNames(before.sources, names) &&
      names.every((n) => !held.get(n)!.changed) &&
      (spec.builtAsNow?.(currentFile) ?? true);
    if (unchanged) {
      linkOrCopy(currentFile, target);
      records[name] = before;
      changes.push({ name, before: before.count, after: before.count, sources: names, rebuilt: false });
      continue;
    }
    // The index builds each leave a few hundred MB of arrays for the collector: freed
    // before the next starts, they never add up (measured by bench/update-memory.ts).
    if (inputs.some(isIpInput)) Bun.gc(true);
    const output = spec.build(inputs, built);
    if (output === null) {
      changes.push({ name, before: before?.count ?? null, after: null, sources: [], rebuilt: before !== undefined });
      continue;
    }
    if ("linkTo" in output) linkOrCopy(output.linkTo, target);
    else writeFileAtomically(target, output.data);
    records[name] = { count: output.count, sources: names };
    changes.push({
      name,
      before: before?.count ?? null,
      after: output.count,
      sources: names,
      rebuilt: true,
      note: "note" in output ? output.note : undefined,
    });
  }
  return { records, changes, inputsOf };
}

/** What of a source's declaration the outputs depend on, as recorded in the manifest. */
function declared(
  source: Source,
): Pick<
  SourceRecord,
  "feeds" | "weight" | "includes" | "verifies" | "popular" | "kind" | "retentionMs" | "cadenceMs" | "class"
> {
  return {
    feeds: source.feeds,
    weight: source.weight,
    includes: source.includes,
    ...(source.verifies ? { verifies: true } : {}),
    ...(source.popular ? { popular: true } : {}),
    ...(source.kind === "rolling" ? { kind: "rolling", retentionMs: source.retentionMs } : {}),
    cadenceMs: source.cadenceMs,
    class: source.class,
  };
}

/** The same data feeds the outputs the same way. */
function sameDeclaration(record: SourceRecord, source: Source): boolean {
  return (
    record.feeds === source.feeds &&
    (record.weight ?? 1) === source.weight &&
    sameNames(record.includes ?? [], source.includes) &&
    (record.verifies ?? false) === source.verifies &&
    (record.popular ?? false) === source.popular &&
    (record.kind ?? "full") === source.kind &&
    (record.kind === undefined || record.retentionMs === source.retentionMs) &&
    (record.class ?? null) === source.class
  );
}

function inputOf(h: Held, rawDir: string): OutputInput {
  const rawFile = join(rawDir, h.record.raw);
  return {
    name: h.source.name,
    format: h.source.format,
    feeds: h.source.feeds,
    weight: h.source.weight,
    includes: h.source.includes,
    rawFile,
    entries: h.record.entries,
    parsed<F extends SourceFormat>(format: F): FormatValues[F] {
      // Each source is parsed once per update: downloads when checked, kept data here.
      try {
        h.parsed ??= FORMATS[format].parse(readFileSync(rawFile), h.source.feeds);
      } catch (err) {
        throw new Error(`${h.source.name}: its kept data (${rawFile}) no longer reads: ${(err as Error).message}`);
      }
      return h.parsed.value as FormatValues[F];
    },
    ipEntries() {
      h.ipEntries ??= clipSpecialPurpose(this.parsed(h.source.format as IpFormat));
      return h.ipEntries;
    },
  };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}
