import { parseCidr } from "../../../ip/address/address-range.ts";
import { checkRejects, listText } from "./content-checks.ts";
import type { Place } from "../../../ip/indexes/relay-place-index.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { checkPlausible } from "./plausible-ranges.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { MB, ipListFormat } from "./source-format.ts";

const WHAT = "an RFC 8805 geofeed";
const COUNTRY = /^[A-Z]{2}$/;
const REGION = /^([A-Z]{2})-[A-Z0-9]{1,3}$/;
const MAX_CITY = 100;

/**
 * An RFC 8805 self-published geofeed, as iCloud Private Relay publishes its egress
 * ranges (mask-api.icloud.com/egress-ip-ranges.csv): one `prefix,country,region,city,postal`
 * row per range, `#` comments. The country is ISO 3166-1 alpha-2, the region ISO 3166-2
 * ("US-CA") of that country; either may be empty. Each range carries its place.
 */
export function parseGeofeedCsv(bytes: Uint8Array): ParsedSource<FeedEntry[]> {
  const text = listText(bytes, WHAT);
  const entries: FeedEntry[] = [];
  // A few thousand places for hundreds of thousands of rows: each held once.
  const places = new Map<string, Place>();
  let rejected = 0;
  let firstRejected: string | undefined;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "" || line[0] === "#") continue;
    const [prefix, country = "", region = "", city = ""] = line.split(",").map((field) => field.trim());
    const range = parseCidr(prefix);
    const regionCountry = REGION.exec(region)?.[1];
    const placeOk = (country === "" || COUNTRY.test(country)) && (region === "" || regionCountry === country) && city.length <= MAX_CITY;
    if (range === null || !placeOk) {
      if (rejected++ === 0) firstRejected = `line ${i + 1}`;
      continue;
    }
    const key = `${country},${region},${city}`;
    let place = places.get(key);
    if (place === undefined) places.set(key, (place = { country, region, city }));
    entries.push({ range, count: 1, place });
  }
  if (entries.length === 0) throw new ContentError(`has no rows: expected ${WHAT}, "prefix,country,region,city,postal" a line`);
  checkRejects(entries.length, rejected, firstRejected, "geofeed rows");
  checkPlausible(entries.map((e) => e.range), { minEntries: 1, maxEntries: 5_000_000, broadestV4: 12, broadestV6: 24 }, WHAT);
  return { value: entries, entries: entries.length, dataDate: null };
}

/**
 * A geofeed's rows are ~40 bytes per range: Apple's relay geofeed is 800,000 rows, 28 MB
 * (547 MB peak of update). Its relay exits feed their places too.
 */
export const GEOFEED_CSV_FORMAT = ipListFormat({
  name: "geofeed-csv",
  targets: ["relay"],
  maxBytes: 32 * MB,
  labels: false,
  alsoFeeds: ["relay-places"],
  parse: parseGeofeedCsv,
});
