import { parseCidr } from "../../../ip/address/address-range.ts";
import { checkRejects, isoDate, listText } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { IP_FEED_TARGETS, MB, ipListFormat } from "./source-format.ts";

const PREFIX_KEYS = ["ipv4Prefix", "ipv6Prefix", "ip_prefix", "ipv6_prefix", "prefix", "cidr"] as const;

/**
 * JSON prefix lists: Google's and Bing's crawler files (`{"creationTime", "prefixes":
 * [{"ipv4Prefix":…}]}`), AWS-style `ip_prefix` objects, and newline-delimited JSON such
 * as Spamhaus `drop_v4.json` (`{"cidr":…}` per line, then a metadata line).
 */
export function parsePrefixJson(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const text = listText(bytes, "a JSON prefix list");
  const documents = jsonDocuments(text);
  const entries: FeedEntry[] = [];
  let rejected = 0;
  let firstRejected: string | undefined;
  let dataDate: string | null = null;
  const take = (record: Record<string, unknown>, key: string) => {
    const cidr = parseCidr(record[key] as string);
    if (!cidr) {
      if (rejected++ === 0) firstRejected = `prefix ${entries.length + rejected}`;
      return;
    }
    entries.push({ range: cidr, count: 1 });
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    const key = PREFIX_KEYS.find((k) => typeof record[k] === "string");
    if (key) {
      take(record, key);
      return;
    }
    for (const value of Object.values(record)) if (typeof value === "object") visit(value);
  };
  for (const document of documents) {
    dataDate ??= documentDate(document);
    visit(document);
  }
  if (entries.length === 0)
    throw new ContentError(
      "has no prefixes, though it parses: a file its publisher moved or retired often answers so (its first bytes " +
        'are in the update log); expected {"prefixes":[{"ipv4Prefix":…}]} or one {"cidr":…} object a line',
    );
  checkRejects(entries.length, rejected, firstRejected, "CIDR prefixes");
  return { value: entries, entries: entries.length, dataDate };
}

/** One JSON document, or one a line. */
function jsonDocuments(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    const documents: unknown[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        documents.push(JSON.parse(line));
      } catch {
        throw new ContentError("neither JSON nor newline-delimited JSON");
      }
    }
    return documents;
  }
}

/** Google's `creationTime`, AWS's `createDate`, Spamhaus's metadata `timestamp` (seconds). */
function documentDate(document: unknown): string | null {
  if (document === null || typeof document !== "object" || Array.isArray(document)) return null;
  const d = document as Record<string, unknown>;
  if (typeof d.creationTime === "string") return isoDate(d.creationTime);
  if (typeof d.createDate === "string")
    return isoDate(d.createDate.replace(/^(\d{4}-\d\d-\d\d)-(\d\d)-(\d\d)-(\d\d)$/, "$1T$2:$3:$4"));
  if (d.type === "metadata" && typeof d.timestamp === "number") return isoDate(d.timestamp * 1000);
  return null;
}

export const PREFIX_JSON_FORMAT = ipListFormat({
  name: "prefix-json",
  targets: IP_FEED_TARGETS,
  maxBytes: 8 * MB,
  labels: false,
  parse: parsePrefixJson,
});
