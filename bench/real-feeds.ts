/**
 * The real feed snapshots in ../shared/feeds, served on 127.0.0.1 as the default
 * sources' URLs would serve them, for trials of `riskcheck update` and calibration.
 * Nothing here is part of `bun test`: tests make their own small fixtures.
 */
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { Snapshot } from "../src/datasets/snapshot.ts";
import { linkTree } from "../src/datasets/staged-files.ts";
import { clipSpecialPurpose } from "../src/datasets/update/clip-special-purpose.ts";
import { FORMATS, type SourceFormat } from "../src/datasets/update/formats/index.ts";
import { cidrsOfRange } from "../src/ip/address/address-range.ts";
import { formatIPv4 } from "../src/ip/address/parse.ts";

export const ROOT = resolve(import.meta.dir, "..");
/** ../shared/feeds beside the checkout, or RISKCHECK_FEEDS for a checkout elsewhere (a git worktree). */
export const FEEDS = resolve(process.env.RISKCHECK_FEEDS ?? resolve(ROOT, "../shared/feeds"));

/**
 * Which snapshot stands in for each default source, and the format when the snapshot
 * is the same list in another of the publisher's layouts (Spamhaus's IPv6 DROP is kept
 * as dropv6.txt, not drop_v6.json).
 */
export const SNAPSHOT_OF: Record<string, { path: string; format?: string }> = {
  "disposable-domains": { path: "disposable-email-domains/disposable_email_blocklist.conf" },
  "disposable-domains-allowlist": { path: "disposable-email-domains/allowlist.conf" },
  mailchecker: { path: "mailchecker/list.txt" },
  "burner-email-providers": { path: "burner-email-providers/emails.txt" },
  castle: { path: "castle-disposable-email-domains/disposable-email-domains.txt" },
  "spamhaus-drop-v4": { path: "spamhaus-drop-v4/drop_v4.json" },
  "spamhaus-drop-v6": { path: "spamhaus-drop-v6/dropv6.txt", format: "address-list" },
  "firehol-level1": { path: "firehol-level1/firehol_level1.netset" },
  "firehol-level2": { path: "firehol-level2/firehol_level2.netset" },
  "firehol-level3": { path: "firehol-level3/firehol_level3.netset" },
  "blocklist-de-ssh": { path: "blocklist-de-ssh/blocklist_de_ssh.ipset" },
  "blocklist-de-bots": { path: "blocklist-de-bots/blocklist_de_bots.ipset" },
  "blocklist-de-mail": { path: "blocklist-de-mail/blocklist_de_mail.ipset" },
  "blocklist-de-apache": { path: "blocklist-de-apache/blocklist_de_apache.ipset" },
  ipsum: { path: "ipsum/ipsum.txt" },
  "tor-exits": { path: "tor-exits/tor_exit_nodes.txt" },
  "x4bnet-datacenter-ipv4": { path: "x4bnet-lists-vpn/datacenter-ipv4.txt" },
  "x4bnet-datacenter-ipv6": { path: "x4bnet-lists-vpn/datacenter-ipv6.txt" },
  "x4bnet-vpn-ipv4": { path: "x4bnet-lists-vpn/vpn-ipv4.txt" },
  "x4bnet-vpn-ipv6": { path: "x4bnet-lists-vpn/vpn-ipv6.txt" },
  "x4bnet-datacenter-asn": { path: "x4bnet-lists-vpn/datacenter-ASN.txt" },
  "x4bnet-vpn-asn": { path: "x4bnet-lists-vpn/vpn-ASN.txt" },
  googlebot: { path: "googlebot/googlebot.json" },
  "google-special-crawlers": { path: "googlebot/special-crawlers.json" },
  "google-user-triggered-fetchers": { path: "googlebot/user-triggered-fetchers.json" },
  applebot: { path: "applebot/applebot.json" },
  "openai-gptbot": { path: "openai/gptbot.json" },
  "openai-searchbot": { path: "openai/searchbot.json" },
  "openai-chatgpt-user": { path: "openai/chatgpt-user.json" },
  // The two snapshots below are a mirror's prefixes-only copies, not the publishers' files.
  bingbot: { path: "bingbot/ipv4.txt", format: "address-list" },
  perplexitybot: { path: "perplexity/ipv4.txt", format: "address-list" },
  aws: { path: "aws/ip-ranges.json" },
  "google-cloud": { path: "gcp/cloud.json" },
  "oracle-cloud": { path: "oracle/public_ip_ranges.json" },
  github: { path: "github/meta.json" },
  "cloudflare-ipv4": { path: "cloudflare/ips-v4" },
  "cloudflare-ipv6": { path: "cloudflare/ips-v6" },
  // Merged prefixes without the geofeed's place columns: the relay cap, no relay places.
  "icloud-private-relay": { path: "icloud-private-relay/ip-ranges.txt", format: "address-list" },
};

/**
 * Serves the snapshots with Last-Modified, like a static host; `overrides` (path under
 * the feeds folder → body) stand in for files, to plant an entry into a real feed.
 */
export function serveFeeds(overrides: Map<string, string> = new Map()): { base: string; stop: () => void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const name = decodeURIComponent(new URL(request.url).pathname).slice(1);
      const override = overrides.get(name);
      if (override !== undefined)
        return new Response(override, { headers: { "last-modified": new Date().toUTCString() } });
      const path = join(FEEDS, name);
      if (!path.startsWith(FEEDS) || !existsSync(path) || statSync(path).isDirectory())
        return new Response("not found", { status: 404 });
      const modified = statSync(path).mtime.toUTCString();
      if (request.headers.get("if-modified-since") === modified) return new Response(null, { status: 304 });
      return new Response(Bun.file(path), { headers: { "last-modified": modified } });
    },
  });
  return { base: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/**
 * The shipped data/sources.json with every source that has a snapshot pointed at the
 * loopback copy; sources without one (the MMDB and ASN downloads, bingbot, the free
 * list's download) are left out, since they cannot be reached offline. The bundled
 * npm: sources stay as they are.
 */
export function trialSources(base: string): { sources: object[]; leftOut: string[] } {
  const shipped = JSON.parse(readFileSync(join(ROOT, "data/sources.json"), "utf8")).sources as {
    name: string;
    url: string;
    format: string;
    supersedes?: string[];
  }[];
  const sources: object[] = [];
  const leftOut: string[] = [];
  for (const source of shipped) {
    const snapshot = SNAPSHOT_OF[source.name];
    if (source.url.startsWith("npm:")) sources.push(source);
    else if (snapshot)
      sources.push({ ...source, url: `${base}/${snapshot.path}`, format: snapshot.format ?? source.format });
    else leftOut.push(source.name);
  }
  // A left-out source cannot supersede anything.
  return {
    sources: sources.map((s) => ({
      ...s,
      supersedes: ((s as { supersedes?: string[] }).supersedes ?? []).filter((n) => !leftOut.includes(n)),
    })),
    leftOut,
  };
}

/** A fresh data directory holding the repository's bundled version (hard links) and the curated files. */
export function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "riskcheck-trial-"));
  const version = basename(readlinkSync(join(ROOT, "data/current")));
  linkTree(join(ROOT, "data/datasets", version), join(dir, "datasets", version));
  symlinkSync(join("datasets", version), join(dir, "current"));
  cpSync(join(ROOT, "data/curated"), join(dir, "curated"), { recursive: true });
  cpSync(join(ROOT, "data/email"), join(dir, "email"), { recursive: true });
  return dir;
}

export function writeSources(dir: string, sources: object[]): string {
  const file = join(dir, "sources.json");
  writeFileSync(file, JSON.stringify({ sources }, null, 1));
  return file;
}

/** Runs `riskcheck update` on `dir` with its sources.json (and `env`, `args`); its standard output, or an error with it. */
export async function runUpdate(dir: string, env: Record<string, string> = {}, ...args: string[]): Promise<string> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/cli/main.ts"), "update", "--data-dir", dir, ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`update exited ${code}:\n${out}${err}`);
  return out;
}

/** Each IP list's entries as served from the data directory `dir` (clipped to public space), one address standing for each range. */
export function listedAddresses(snapshot: Snapshot, dir: string): Map<string, string[]> {
  const bySource = new Map<string, string[]>();
  for (const [name, source] of Object.entries(snapshot.sources)) {
    if (source.format !== "address-list" && source.format !== "prefix-json") continue;
    const parsed = FORMATS[source.format as SourceFormat].parse(
      readFileSync(join(dir, "current", "raw", source.raw)),
      source.feeds,
    );
    const { entries } = clipSpecialPurpose(parsed.value as never);
    bySource.set(
      name,
      entries.map((e) =>
        e.range.version === 4 ? formatIPv4(Number(e.range.first)) : cidrsOfRange(e.range)[0].split("/")[0],
      ),
    );
  }
  return bySource;
}
