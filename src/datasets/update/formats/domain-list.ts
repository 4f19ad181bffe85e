import { parseDomainListText } from "../../../email/domain-lists.ts";
import { normaliseDomain } from "../../../email/domain-name.ts";
import { checkRejects, headerDate, listText } from "./content-checks.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { MB, type SourceFormatDescriptor } from "./source-format.ts";

export const DOMAIN_LIST_TARGETS = ["disposable", "disposable-wildcard", "free", "allow"] as const;

/**
 * One domain a line (`#` comments, a `*.` prefix allowed; a `# Last update:` header dates
 * the data), or a JSON array of names.
 * Every entry is normalised as an address's domain is (UTS-46, lower-case ASCII).
 */
export function parseDomainList(bytes: Uint8Array): ParsedSource<string[]> {
  const text = listText(bytes, "a list of domain names");
  const json = text.trimStart().startsWith("[");
  const raw = json ? jsonNames(text) : parseDomainListText(text);
  const domains = new Set<string>();
  let rejected = 0;
  let firstRejected: string | undefined;
  for (const [i, entry] of raw.entries()) {
    const domain = normaliseDomain(entry.startsWith("*.") ? entry.slice(2) : entry);
    if (domain !== null) domains.add(domain);
    else if (rejected++ === 0) firstRejected = `entry ${i + 1}`;
  }
  checkRejects(domains.size, rejected, firstRejected, "domain names");
  // fakefilter heads its list with "# Last Update: <ISO time>".
  return { value: [...domains], entries: domains.size, dataDate: json ? null : headerDate(text) };
}

function jsonNames(text: string): string[] {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    // The parser's message quotes the bytes, which may be anything: not for /healthz.
    throw new ContentError("starts like a JSON array but is not JSON");
  }
  if (!Array.isArray(list) || list.some((d) => typeof d !== "string"))
    throw new ContentError("expected a JSON array of domain names");
  return list as string[];
}

export const DOMAIN_LIST_FORMAT: SourceFormatDescriptor<"domain-list", string[]> = {
  name: "domain-list",
  targets: DOMAIN_LIST_TARGETS,
  maxBytes: 8 * MB,
  outputs: ["disposable-domains", "disposable-wildcards", "free-domains", "allowed-domains"],
  labels: false,
  parse: parseDomainList,
};
