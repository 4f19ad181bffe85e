import { type FlatRecord, type Located, type MaxMindRecord, NOT_LOCATED, type RecordSchema, fromFlatRecord, fromMaxMindRecord, located, schemaOfRecord } from "./geo-record.ts";
import { type OpenedMmdb, openMmdb, recordLookup } from "./mmdb.ts";
import type { ParsedIp } from "../address/parse.ts";

export { type Geolocation, type Located, NOT_LOCATED, UNKNOWN_LOCATION } from "./geo-record.ts";

/** Where an address is. Routes and tests depend on this, not on MMDB files. */
export interface GeoLookup {
  /** The same frozen object for every address of a network record; never modify it. */
  lookup(ip: ParsedIp): Located;
}

/** Addresses that any real city or country database knows, to see which schema it writes. */
const PROBES = ["8.8.8.8", "81.2.69.142", "1.1.1.1", "2.125.160.216", "2001:4860:4860::8888", "2a03:2880:f12f:83:face:b00c:0:25de", "2001:218::1"];

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

type Locate = (ip: ParsedIp) => Located;

function locator(mmdb: OpenedMmdb): Locate {
  const flat = schemaOf(mmdb) === "flat";
  return recordLookup(mmdb, (record) => {
    if (record === null || typeof record !== "object") return NOT_LOCATED;
    return located(Object.freeze(flat ? fromFlatRecord(record as FlatRecord) : fromMaxMindRecord(record as MaxMindRecord)));
  });
}

/**
 * City-level answer from the city database for the address's family; where that has
 * no record or no country, the country-level database still gives the country.
 */
export class MmdbGeolocation implements GeoLookup {
  private readonly cityV4: Locate;
  private readonly cityV6: Locate;
  private readonly country: Locate | null;

  constructor(cityV4: OpenedMmdb, cityV6: OpenedMmdb, country: OpenedMmdb | null) {
    this.cityV4 = locator(cityV4);
    this.cityV6 = cityV6 === cityV4 ? this.cityV4 : locator(cityV6);
    this.country = country && locator(country);
  }

  lookup(ip: ParsedIp): Located {
    const found = ip.version === 4 ? this.cityV4(ip) : this.cityV6(ip);
    if (found.geo.country_code || !this.country) return found;
    const countryOnly = this.country(ip);
    return countryOnly.geo.country_code ? countryOnly : found;
  }
}

export interface GeoFiles {
  readonly cityV4: string;
  readonly cityV6: string;
  /** Country-level fallback covering IPv4 and IPv6; null for none. */
  readonly country: string | null;
}

export async function openGeolocation(files: GeoFiles): Promise<MmdbGeolocation> {
  const [cityV4, cityV6, country] = await Promise.all([openMmdb(files.cityV4), openMmdb(files.cityV6), files.country === null ? null : openMmdb(files.country)]);
  return new MmdbGeolocation(cityV4, cityV6, country);
}
