import { DatasetError } from "../ip/dataset-error.ts";
import { countryName } from "../ip/geo/country.ts";
import type { Geolocation } from "../ip/geo/geo-record.ts";

const HEADER = "key,country,subdivision,subdivision_name,city,latitude,longitude,time_zone,source";
const KEY = /^[a-z]+:[a-z0-9-]+$/;

/**
 * The checks of a row that read the ISO 3166-2 list and the time-zone database (~60 ms to import
 * the one, ~10 ms to list the other): a load runs them only on a table it has not seen pass them.
 */
export interface PlaceChecks {
  isSubdivision(code: string): boolean;
  isTimeZone(name: string): boolean;
}

export async function placeChecks(): Promise<PlaceChecks> {
  const { iso31662 } = await import("iso-3166");
  const subdivisions = new Set(iso31662.map((s) => s.code));
  return { isSubdivision: (code) => subdivisions.has(code), isTimeZone };
}

/**
 * The curated cloud-region table (data/curated/cloud-regions.csv): where each provider's region
 * is, by name ("aws:eu-central-1"), as the answer gives it. A field the provider does not
 * state is empty in the row and stays empty in the answer (no zip ever: a region has none).
 * A row that cannot be right throws a DatasetError naming file:line. `checks` null: this very text passed them
 * before (`curated-data.ts` keeps the record), so only the checks that need neither list run.
 */
export function parseRegionTable(text: string, file: string, checks: PlaceChecks | null): Map<string, Geolocation> {
  const regions = new Map<string, Geolocation>();
  let header = false;
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const at = `${file}:${i + 1}`;
    if (!header) {
      if (line !== HEADER) throw new DatasetError(at, `the header is not "${HEADER}"`, "restore the header line");
      header = true;
      continue;
    }
    const fields = line.split(",");
    const wrong = (what: string) => new DatasetError(at, what, "fix or remove the line");
    if (fields.length !== 9) throw wrong(`has ${fields.length} fields, not the header's 9 (a field holds no comma)`);
    const [key, country, subdivision, subdivisionName, city, latitude, longitude, timeZone, source] = fields.map((f) =>
      f.trim(),
    );
    if (!KEY.test(key)) throw wrong(`"${key}" is not a region name such as aws:eu-central-1`);
    if (regions.has(key)) throw wrong(`${key} is listed twice`);
    if (!countryName(country)) throw wrong(`"${country}" is not an ISO 3166-1 alpha-2 country code`);
    if (subdivision !== "" && (checks?.isSubdivision(subdivision) === false || !subdivision.startsWith(`${country}-`)))
      throw wrong(`"${subdivision}" is not an ISO 3166-2 subdivision of ${country}`);
    if ((subdivision === "") !== (subdivisionName === ""))
      throw wrong("a subdivision needs its code and its name, or neither");
    if ((latitude === "") !== (longitude === ""))
      throw wrong("coordinates need a latitude and a longitude, or neither");
    const lat = Number(latitude);
    const lon = Number(longitude);
    if (
      latitude !== "" &&
      !(Number.isFinite(lat) && Math.abs(lat) <= 90 && Number.isFinite(lon) && Math.abs(lon) <= 180)
    )
      throw wrong(`${latitude},${longitude} are not coordinates`);
    if (timeZone !== "" && checks?.isTimeZone(timeZone) === false)
      throw wrong(`"${timeZone}" is not an IANA time zone`);
    if (source === "") throw wrong("names no source: say where the provider states the place");
    regions.set(key, {
      country: countryName(country),
      country_code: country,
      region: subdivision.slice(country.length + 1),
      region_name: subdivisionName,
      city,
      subdivisions: "",
      zip: "",
      latitude: latitude === "" ? 0 : lat,
      longitude: longitude === "" ? 0 : lon,
      timezone: timeZone,
    });
  }
  if (!header) throw new DatasetError(file, `has no header line "${HEADER}"`);
  return regions;
}

/** The canonical IANA names, listed once: a formatter made for each of the 247 rows was ~100 ms of a start at load 12. */
let canonicalZones: ReadonlySet<string> | undefined;

function isTimeZone(name: string): boolean {
  canonicalZones ??= new Set(Intl.supportedValuesOf("timeZone"));
  if (canonicalZones.has(name)) return true;
  // An alias ("Asia/Calcutta", "UTC") is not in the list, and is a zone all the same.
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
