import { type Reader, type Response as MmdbRecord, open } from "maxmind";
import { DatasetError } from "../datasets/dataset-error.ts";
import { countryName } from "./country.ts";
import type { ParsedIp } from "./parse.ts";
import { subdivisionCode } from "./subdivision-codes.ts";

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

export interface GeoLookup {
  /** The same object for addresses of the same network record; never modify it. */
  lookup(ip: ParsedIp): Geolocation | null;
}

/** The flat schema of the @ip-location-db packages. */
interface FlatRecord {
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
/** The MaxMind GeoIP2/GeoLite2 City schema, which DB-IP's City files share. */
export interface CityRecord {
  country?: Named;
  registered_country?: Named;
  subdivisions?: Named[];
  city?: { names?: { en?: string } };
  postal?: { code?: string };
  location?: { latitude?: number; longitude?: number; time_zone?: string };
}

export type MmdbSchema = "flat" | "maxmind";

export interface OpenedMmdb {
  readonly file: string;
  readonly reader: Reader<MmdbRecord>;
  readonly databaseType: string;
  readonly buildDate: string;
}

/** Opens an MMDB and checks it answers; errors name the file and the fix. */
export async function openMmdb(file: string): Promise<OpenedMmdb> {
  let reader: Reader<MmdbRecord>;
  try {
    reader = await open<MmdbRecord>(file);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
    throw new DatasetError(file, missing ? "missing" : `not a valid MaxMind DB file (${(err as Error).message})`);
  }
  return { file, reader, databaseType: reader.metadata.databaseType, buildDate: reader.metadata.buildEpoch.toISOString() };
}

export function schemaOf(databaseType: string): MmdbSchema {
  return /^(GeoIP2|GeoLite2|DBIP)/i.test(databaseType) ? "maxmind" : "flat";
}

const round = (n: number | undefined) => (n === undefined ? 0 : Math.round(n * 10_000) / 10_000);

export function fromFlatRecord(r: FlatRecord): Geolocation {
  const code = r.country_code ?? "";
  return {
    country: countryName(code),
    country_code: code,
    region: subdivisionCode(code, r.state1 ?? ""),
    region_name: r.state1 ?? "",
    city: r.city ?? "",
    subdivisions: r.state2 ?? "",
    zip: r.postcode ?? "",
    latitude: round(r.latitude),
    longitude: round(r.longitude),
    timezone: r.timezone ?? "",
  };
}

export function fromCityRecord(r: CityRecord): Geolocation {
  const country = r.country ?? r.registered_country;
  const code = country?.iso_code ?? "";
  const [first, ...rest] = r.subdivisions ?? [];
  return {
    country: country?.names?.en ?? countryName(code),
    country_code: code,
    region: first?.iso_code ?? subdivisionCode(code, first?.names?.en ?? ""),
    region_name: first?.names?.en ?? "",
    city: r.city?.names?.en ?? "",
    subdivisions: rest.map((s) => s.names?.en ?? "").filter(Boolean).join(", "),
    zip: r.postal?.code ?? "",
    latitude: round(r.location?.latitude),
    longitude: round(r.location?.longitude),
    timezone: r.location?.time_zone ?? "",
  };
}

const NO_COUNTRY = Object.freeze({}) as Geolocation;

/**
 * Maps a record once: the MMDB decoder hands out the same object for the same
 * record while it is cached, so repeated networks cost one WeakMap lookup.
 */
function toGeolocation(schema: MmdbSchema, record: unknown, mapped: WeakMap<object, Geolocation>): Geolocation | null {
  if (record === null || typeof record !== "object") return null;
  let geo = mapped.get(record);
  if (geo === undefined) {
    const fresh = schema === "flat" ? fromFlatRecord(record as FlatRecord) : fromCityRecord(record as CityRecord);
    geo = fresh.country_code ? Object.freeze(fresh) : NO_COUNTRY;
    mapped.set(record, geo);
  }
  return geo === NO_COUNTRY ? null : geo;
}

/**
 * City-level answer from the city file for the address's family; where it has no
 * record, the country-level file still gives the country.
 */
export class MmdbGeolocation implements GeoLookup {
  private readonly v4: { reader: Reader<MmdbRecord>; schema: MmdbSchema };
  private readonly v6: { reader: Reader<MmdbRecord>; schema: MmdbSchema };
  private readonly country: { reader: Reader<MmdbRecord>; schema: MmdbSchema } | null;
  private readonly mapped = new WeakMap<object, Geolocation>();

  constructor(cityV4: OpenedMmdb, cityV6: OpenedMmdb, country: OpenedMmdb | null) {
    const side = (m: OpenedMmdb) => ({ reader: m.reader, schema: schemaOf(m.databaseType) });
    this.v4 = side(cityV4);
    this.v6 = side(cityV6);
    this.country = country && side(country);
  }

  lookup(ip: ParsedIp): Geolocation | null {
    const city = ip.version === 4 ? this.v4 : this.v6;
    const found = toGeolocation(city.schema, city.reader.get(ip.text), this.mapped);
    if (found || !this.country) return found;
    return toGeolocation(this.country.schema, this.country.reader.get(ip.text), this.mapped);
  }
}
