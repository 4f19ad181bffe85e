import { countryFlag, countryName } from "./country.ts";
import { subdivisionCode } from "./subdivision-codes.ts";

/** What the API answers about where an address is; '' and 0 when unknown. */
export interface Geolocation {
  readonly country: string;
  readonly country_code: string;
  readonly region: string;
  readonly region_name: string;
  readonly city: string;
  readonly subdivisions: string;
  readonly zip: string;
  readonly latitude: number;
  readonly longitude: number;
  readonly timezone: string;
}

export const UNKNOWN_LOCATION: Geolocation = Object.freeze({
  country: "",
  country_code: "",
  region: "",
  region_name: "",
  city: "",
  subdivisions: "",
  zip: "",
  latitude: 0,
  longitude: 0,
  timezone: "",
});

/**
 * A network record's location with its parts of the IP answer's JSON: the fields before
 * `connection_type`, and those from `zip` to `timezone`.
 */
export interface Located {
  readonly geo: Geolocation;
  /** `geo.country_code`, without reading the record back from its JSON. */
  readonly countryCode: string;
  /** `"country":"…",…,"subdivisions":"…",`: `countryJson` then `placeJson` */
  readonly headJson: string;
  /** `"zip":"…",…,"timezone":"…",` */
  readonly tailJson: string;
}

export function located(geo: Geolocation): Located {
  return Object.freeze({
    geo,
    countryCode: geo.country_code,
    headJson: countryJson(geo) + placeJson(geo),
    tailJson: tailJson(geo),
  });
}

/** `"country":"…","country_code":"…","flag":"…",` */
export function countryJson(geo: Geolocation): string {
  return jsonMembers({ country: geo.country, country_code: geo.country_code, flag: countryFlag(geo.country_code) });
}

/** `"region":"…","region_name":"…","city":"…","subdivisions":"…",` */
export function placeJson(geo: Geolocation): string {
  return jsonMembers({
    region: geo.region,
    region_name: geo.region_name,
    city: geo.city,
    subdivisions: geo.subdivisions,
  });
}

/** `"zip":"…","latitude":…,"longitude":…,"timezone":"…",` */
export function tailJson(geo: Geolocation): string {
  return jsonMembers({ zip: geo.zip, latitude: geo.latitude, longitude: geo.longitude, timezone: geo.timezone });
}

/** An object's JSON without its braces, and a comma for the next member. */
function jsonMembers(members: object): string {
  return `${JSON.stringify(members).slice(1, -1)},`;
}

export const NOT_LOCATED: Located = located(UNKNOWN_LOCATION);

/** The flat schema of the @ip-location-db packages (city files; country files have country_code only). */
export interface FlatRecord {
  country_code?: string;
  state1?: string;
  state2?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
}

type Named = { iso_code?: string; names?: { en?: string } };
/** The MaxMind GeoIP2/GeoLite2 City and Country schema, which DB-IP's files share. */
export interface MaxMindRecord {
  country?: Named;
  registered_country?: Named;
  subdivisions?: Named[];
  city?: { names?: { en?: string } };
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string };
}

export type RecordSchema = "flat" | "maxmind";

/** Which schema a record is written in; null when it shows neither. */
export function schemaOfRecord(record: unknown): RecordSchema | null {
  if (record === null || typeof record !== "object") return null;
  if ("country_code" in record || "state1" in record) return "flat";
  if ("country" in record || "registered_country" in record || "location" in record || "subdivisions" in record)
    return "maxmind";
  return null;
}

/** MMDB floats (37.750999450683594) to 4 decimals: about 11 m, finer than any city-level fix. */
function coordinate(value: number | undefined): number {
  return value === undefined ? 0 : Math.round(value * 10_000) / 10_000;
}

export function fromFlatRecord(r: FlatRecord): Geolocation {
  const code = r.country_code ?? "";
  const region = r.state1 ?? "";
  return {
    country: countryName(code),
    country_code: code,
    region: subdivisionCode(code, region),
    region_name: region,
    city: r.city ?? "",
    subdivisions: r.state2 ?? "",
    zip: r.postcode ?? "",
    latitude: coordinate(r.latitude),
    longitude: coordinate(r.longitude),
    timezone: r.timezone ?? "",
  };
}

export function fromMaxMindRecord(r: MaxMindRecord): Geolocation {
  const country = r.country?.iso_code ? r.country : r.registered_country;
  const code = country?.iso_code ?? "";
  const subdivisions = r.subdivisions ?? [];
  const first = subdivisions[0];
  const regionName = first?.names?.en ?? "";
  let rest = "";
  for (let i = 1; i < subdivisions.length; i++) {
    const name = subdivisions[i].names?.en;
    if (name) rest = rest ? `${rest}, ${name}` : name;
  }
  return {
    // The Intl name, not names.en, so a country reads the same whichever database answered.
    country: countryName(code) || (country?.names?.en ?? ""),
    country_code: code,
    region: first?.iso_code ?? subdivisionCode(code, regionName),
    region_name: regionName,
    city: r.city?.names?.en ?? "",
    subdivisions: rest,
    zip: r.postal?.code ?? "",
    latitude: coordinate(r.location?.latitude),
    longitude: coordinate(r.location?.longitude),
    timezone: r.location?.time_zone ?? "",
  };
}
