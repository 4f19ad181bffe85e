import { parseCidr } from "../../../ip/address/address-range.ts";
import { arrayAt, checkRejects, isoDate, jsonObject } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { INFRASTRUCTURE_TARGETS, MB, ipListFormat } from "./source-format.ts";

const WHAT = "AWS ip-ranges.json";

/**
 * AWS `ip-ranges.json`: `{syncToken, createDate, prefixes: [{ip_prefix, region, service,
 * network_border_group}], ipv6_prefixes: [{ipv6_prefix, …}]}`. AWS lists a range once per
 * service that uses it, AMAZON (all of Amazon) among them; the label names the region
 * and the specific services: "AWS us-east-1 EC2"; its places are the network border group
 * (a Local Zone: us-east-1-bue-1) and the region.
 */
export function parseAwsIpRanges(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const document = jsonObject(bytes, WHAT);
  const services = new Map<string, { region: string; zone: string; services: Set<string> }>();
  let rejected = 0;
  let firstRejected: string | undefined;
  for (const [list, key] of [
    ["prefixes", "ip_prefix"],
    ["ipv6_prefixes", "ipv6_prefix"],
  ] as const) {
    for (const [i, item] of arrayAt(document, list).entries()) {
      const record = (item ?? {}) as Record<string, unknown>;
      const prefix = record[key];
      if (typeof prefix !== "string" || parseCidr(prefix) === null) {
        if (rejected++ === 0) firstRejected = `${list}[${i}]`;
        continue;
      }
      const region = typeof record.region === "string" ? record.region : "";
      const service = typeof record.service === "string" ? record.service : "";
      const zone = typeof record.network_border_group === "string" ? record.network_border_group : "";
      const known = services.get(prefix) ?? { region, zone, services: new Set<string>() };
      if (service) known.services.add(service);
      services.set(prefix, known);
    }
  }
  if (services.size === 0)
    throw new ContentError(`has no prefixes: expected ${WHAT}, {"prefixes":[{"ip_prefix":…,"region":…,"service":…}]}`);
  checkRejects(services.size, rejected, firstRejected, "AWS prefix records");
  const entries = [...services].map(([prefix, { region, zone, services: named }]): FeedEntry => {
    const specific = [...named].filter((s) => s !== "AMAZON");
    const label = ["AWS", region === "GLOBAL" ? "global" : region, ...(specific.length ? specific : [...named])]
      .filter(Boolean)
      .join(" ");
    // GLOBAL (CloudFront, Route 53 …) is everywhere: no place. A Local Zone's border group names its metro.
    const regions =
      region === "" || region === "GLOBAL"
        ? []
        : [...new Set([zone, region].filter(Boolean))].map((name) => `aws:${name}`);
    return { range: parseCidr(prefix)!, count: 1, label, ...(regions.length ? { regions } : {}) };
  });
  checkPlausible(
    entries.map((e) => e.range),
    { minEntries: 1, maxEntries: 200_000, broadestV4: 8, broadestV6: 16 },
    WHAT,
  );
  const created =
    typeof document.createDate === "string"
      ? document.createDate.replace(/^(\d{4}-\d\d-\d\d)-(\d\d)-(\d\d)-(\d\d)$/, "$1T$2:$3:$4")
      : null;
  return { value: entries, entries: entries.length, dataDate: created ? isoDate(created) : null };
}

/** AWS's ip-ranges.json is 2.6 MB. */
export const AWS_IP_RANGES_FORMAT = ipListFormat({
  name: "aws-ip-ranges",
  targets: INFRASTRUCTURE_TARGETS,
  maxBytes: 16 * MB,
  labels: true,
  alsoFeeds: ["declared-locations"],
  parse: parseAwsIpRanges,
});
