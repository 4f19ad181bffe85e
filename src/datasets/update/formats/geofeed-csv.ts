import { iso31662 } from "iso-3166";
import { type AddressRange, cidrsOfRange, parseCidr } from "../../../ip/address/address-range.ts";
import { countryName } from "../../../ip/geo/country.ts";
import type { Place } from "../../../ip/indexes/declared-location-index.ts";
import { touchesSpecialPurpose } from "../clip-special-purpose.ts";
import { MAX_REJECTED_SHARE, listText } from "./content-checks.ts";
import type { FeedEntry } from "./feed-entry.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { MB, ipListFormat } from "./source-format.ts";

const WHAT = "an RFC 8805 geofeed";
const COUNTRY = /^[A-Z]{2}$/;
const REGION = /^([A-Z]{2})-[A-Z0-9]{1,3}$/;
/** Every ISO 3166-2 subdivision: `DE-ZZZ` has the form of one and is none. */
const SUBDIVISIONS: ReadonlySet<string> = new Set(iso31662.map((s) => s.code));
/** What a city's name may not hold: control and invisible formatting characters, line breaks. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const MAX_CITY = 100;
/** Apple's relay feed, the largest known, has about 800,000. */
const MAX_ROWS = 5_000_000;
/** Refused rows the update summary names; the rest it counts. */
const NAMED_REFUSALS = 5;
/** Unreadable rows that make a file no geofeed, past MAX_REJECTED_SHARE of its rows: a few typos in a small feed do not. */
const MAX_REFUSED_ROWS = 10;

/** The broadest prefix a geofeed row may have, per what the feed feeds. */
export const GEOFEED_BROADEST: Readonly<Record<string, { readonly v4: number; readonly v6: number }>> = {
  /** A relay's exits: Apple's widest is a /12 (as anycast edges). */
  relay: { v4: 12, v6: 24 },
  /** An operator's or a partner's ranges: a site, a region of an ISP; never a country's worth of addresses. */
  location: { v4: 16, v6: 32 },
};

/**
 * An RFC 8805 self-published geofeed, as iCloud Private Relay publishes its egress
 * ranges (mask-api.icloud.com/egress-ip-ranges.csv) and ISPs and companies publish theirs:
 * one `prefix,country,region,city,postal` row per range, `#` comments. The country is
 * ISO 3166-1 alpha-2, the region an ISO 3166-2 subdivision ("US-CA") of that country, or
 * empty. Each range carries its place. A row that cannot be right is refused and named in
 * the note: no prefix, or one with host bits set (`8.8.8.8/16`, which would silently widen);
 * an unknown country or subdivision; a city with control characters; private space; a prefix
 * broader than `feeds` allows; in a location feed, no country (RFC 8805 allows it, but the row
 * would blank what the database knows of the range; a relay's row without one marks its exit
 * and declares no place). Too many such rows and the file is no geofeed.
 */
export function parseGeofeedCsv(bytes: Uint8Array, feeds = "relay"): ParsedSource<FeedEntry[]> {
  const text = listText(bytes, WHAT);
  const broadest = GEOFEED_BROADEST[feeds] ?? GEOFEED_BROADEST.relay;
  const entries: FeedEntry[] = [];
  // A few thousand places for hundreds of thousands of rows: each held once.
  const places = new Map<string, Place>();
  const refused: string[] = [];
  // Rows that are no geofeed row at all, as against rows for space the feed may not speak for.
  let malformedRows = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "" || line[0] === "#") continue;
    const [prefix, country = "", region = "", city = ""] = line.split(",").map((field) => field.trim());
    const range = parseCidr(prefix);
    // A refusal repeats a field only once it is known to be what it should be.
    const malformed =
      range === null
        ? "not a prefix"
        : hostBits(prefix, range)
          ? `host bits set: the prefix is ${cidrsOfRange(range)[0]}`
          : country !== "" && !countryName(country)
            ? COUNTRY.test(country)
              ? `country "${country}" is not an ISO 3166-1 code`
              : "the country is not an ISO 3166-1 code"
            : region !== "" && (REGION.exec(region)?.[1] !== country || !SUBDIVISIONS.has(region))
              ? REGION.exec(region)?.[1] === country
                ? `region "${region}" is no ISO 3166-2 subdivision of ${country}`
                : "the region is not an ISO 3166-2 code of the row's country"
              : city.length > MAX_CITY
                ? `the city is longer than ${MAX_CITY} characters`
                : UNPRINTABLE.test(city)
                  ? "the city holds control or invisible formatting characters"
                  : null;
    const outOfBounds =
      range === null
        ? null
        : touchesSpecialPurpose(range)
          ? `${prefix}: private or special-purpose space`
          : tooBroad(range, broadest)
            ? `${prefix}: broader than /${range.version === 4 ? broadest.v4 : broadest.v6}`
            : country === "" && feeds === "location"
              ? `${prefix}: no country, which would blank the location the database gives it`
              : null;
    if (malformed !== null || outOfBounds !== null) {
      refused.push(`line ${i + 1} (${malformed ?? outOfBounds})`);
      if (malformed !== null) malformedRows++;
      continue;
    }
    // A relay's exit without a country is still an exit; it declares no place, which would blank the database's.
    if (country === "") {
      entries.push({ range: range!, count: 1 });
      continue;
    }
    const key = `${country},${region},${city}`;
    let place = places.get(key);
    if (place === undefined) places.set(key, (place = { country, region, city }));
    entries.push({ range: range!, count: 1, place });
  }
  if (entries.length === 0)
    throw new ContentError(
      `has no rows${refused.length ? ` it can use (${refused[0]})` : ""}: expected ${WHAT}, "prefix,country,region,city,postal" a line`,
    );
  if (malformedRows > MAX_REFUSED_ROWS && malformedRows > entries.length * MAX_REJECTED_SHARE) {
    throw new ContentError(
      `${malformedRows} of ${entries.length + refused.length} rows are not geofeed rows; more than ` +
        `${MAX_REJECTED_SHARE * 100} % is not a damaged line but the wrong file`,
    );
  }
  if (entries.length > MAX_ROWS)
    throw new ContentError(`has ${entries.length} rows; ${WHAT} holds at most ${MAX_ROWS}`);
  const named = refused.slice(0, NAMED_REFUSALS).join(", ");
  const more = refused.length > NAMED_REFUSALS ? ` and ${refused.length - NAMED_REFUSALS} more` : "";
  const note = refused.length
    ? `refused ${refused.length} row${refused.length > 1 ? "s" : ""}: ${named}${more}`
    : undefined;
  return { value: entries, entries: entries.length, dataDate: null, ...(note ? { note } : {}) };
}

/** Whether a prefix names an address below its network: parseCidr drops those bits, which would widen the row. */
function hostBits(prefix: string, range: AddressRange): boolean {
  const slash = prefix.indexOf("/");
  return slash !== -1 && parseCidr(prefix.slice(0, slash))!.first !== range.first;
}

function tooBroad(range: AddressRange, broadest: { readonly v4: number; readonly v6: number }): boolean {
  const [width, limit] = range.version === 4 ? [32, broadest.v4] : [128, broadest.v6];
  return range.last - range.first >= 1n << BigInt(width - limit);
}

/**
 * A geofeed's rows are ~40 bytes per range: Apple's relay geofeed is 800,000 rows, 28 MB
 * (547 MB peak of update). It feeds relay exits (a flag, and their users' places), or where
 * an operator's or a partner's ranges are.
 */
export const GEOFEED_CSV_FORMAT = ipListFormat({
  name: "geofeed-csv",
  targets: ["relay", "location"],
  maxBytes: 32 * MB,
  labels: false,
  alsoFeeds: ["declared-locations"],
  parse: parseGeofeedCsv,
});
