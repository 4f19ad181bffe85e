import type { TableColumns } from "./compile-record-table.ts";
import { countryName } from "./country.ts";
import { type Geolocation, countryJson, placeJson, tailJson } from "./geo-record.ts";
import type { OpenedMmdb } from "./mmdb.ts";
import { subdivisionCode } from "./subdivision-codes.ts";

/*
 * The records of a city or country MMDB read as the answer's Geolocation: what compiling a table
 * needs, apart from what serving one does (this reads the ISO 3166-2 list, a start need not).
 */

/** Addresses that any real city or country database knows, to see which schema it writes. */
const PROBES = [
  "8.8.8.8",
  "81.2.69.142",
  "1.1.1.1",
  "2.125.160.216",
  "2001:4860:4860::8888",
  "2a03:2880:f12f:83:face:b00c:0:25de",
  "2001:218::1",
];

/** The record schema of a database, from the shape of its records, else from its type name. */
export function schemaOf(mmdb: OpenedMmdb): RecordSchema {
  const ipv6 = mmdb.reader.metadata.ipVersion === 6;
  for (const probe of PROBES) {
    if (!ipv6 && probe.includes(":")) continue;
    const schema = schemaOfRecord(mmdb.reader.get(probe));
    if (schema) return schema;
  }
  return /^(GeoIP|GeoLite|DBIP)/i.test(mmdb.databaseType) ? "maxmind" : "flat";
}

/**
 * A city or country database's columns: what geolocation.ts's `GeoTable` reads per record (the country code, then
 * the answer's three JSON parts, in that order), computed once when it is compiled.
 */
export function geoColumns(mmdb: OpenedMmdb): TableColumns {
  const flat = schemaOf(mmdb) === "flat";
  return {
    count: 4,
    of(record) {
      const geo = flat ? fromFlatRecord(record as FlatRecord) : fromMaxMindRecord(record as MaxMindRecord);
      return [geo.country_code, countryJson(geo), placeJson(geo), tailJson(geo)];
    },
  };
}

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
