import { parseCidr } from "../../ip/cidr.ts";
import { cidrBounds } from "../../ip/range-index-builder.ts";
import type { FeedEntry, ParsedFeed } from "./feed-entry.ts";

const PREFIX_KEYS = ["ipv4Prefix", "ipv6Prefix", "ip_prefix", "ipv6_prefix", "prefix", "cidr"] as const;

/**
 * JSON prefix lists: Google's and Bing's crawler files (`{"prefixes":[{"ipv4Prefix":…}]}`),
 * AWS-style `ip_prefix` objects, and newline-delimited JSON such as Spamhaus
 * `drop_v4.json` (`{"cidr":…}` per line). Throws when the text is not JSON at all.
 */
export function parsePrefixJson(text: string): ParsedFeed {
  const documents: unknown[] = [];
  try {
    documents.push(JSON.parse(text));
  } catch {
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        documents.push(JSON.parse(line));
      } catch {
        throw new Error("neither JSON nor newline-delimited JSON");
      }
    }
  }
  const entries: FeedEntry[] = [];
  let unreadable = 0;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    const key = PREFIX_KEYS.find((k) => typeof record[k] === "string");
    if (key) {
      const cidr = parseCidr(record[key] as string);
      if (!cidr) unreadable++;
      else {
        const { version, start, end } = cidrBounds(cidr);
        entries.push({ range: { version, first: start, last: end }, count: 1 });
      }
      return;
    }
    for (const value of Object.values(record)) if (typeof value === "object") visit(value);
  };
  documents.forEach(visit);
  return { entries, unreadable };
}
