import { type FlatRecord, type Geolocation, type Located, type MaxMindRecord, NOT_LOCATED, type RecordSchema, countryJson, fromFlatRecord, fromMaxMindRecord, placeJson, schemaOfRecord, tailJson } from "./geo-record.ts";
import { type OpenedMmdb, indexRecords, openMmdb } from "./mmdb.ts";
import { NO_ORDINAL, type RecordIndex } from "./record-index.ts";
import type { ParsedIp } from "../address/parse.ts";

export { type Geolocation, type Located, NOT_LOCATED, UNKNOWN_LOCATION } from "./geo-record.ts";

/** Where an address is. Routes and tests depend on this, not on MMDB files. */
export interface GeoLookup {
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

/** Strings per packed chunk: a whole table's strings are never all alive as separate strings. */
const STRINGS_PER_CHUNK = 4096;

/**
 * Strings appended one by one and kept laid end to end in a few long strings, so that a
 * table of hundreds of thousands costs the collector a few dozen objects.
 */
class PackedStrings {
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  /** Where each string ends within its chunk; it starts where the one before it ends, or at 0 as a chunk's first. */
  private ends = new Uint32Array(STRINGS_PER_CHUNK);
  private count = 0;

  add(value: string): void {
    const index = this.count++;
    if (index === this.ends.length) {
      const grown = new Uint32Array(index * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[index] = this.startOf(index) + value.length;
    this.pending.push(value);
    if (this.pending.length === STRINGS_PER_CHUNK) this.seal();
  }

  /** Packs the strings added since the last chunk. */
  seal(): this {
    if (this.pending.length > 0) this.chunks.push(this.pending.join(""));
    this.pending = [];
    return this;
  }

  at(index: number): string {
    return this.chunks[Math.floor(index / STRINGS_PER_CHUNK)].slice(this.startOf(index), this.ends[index]);
  }

  private startOf(index: number): number {
    return index % STRINGS_PER_CHUNK === 0 ? 0 : this.ends[index - 1];
  }
}

/**
 * The IP answer's JSON parts for every record of one city or country database, built when
 * the snapshot loads and read by record number: the country part from a short list, the
 * place and the tail from packed strings.
 */
class GeoTable {
  private constructor(
    private readonly mmdb: OpenedMmdb,
    private readonly flat: boolean,
    private readonly index: RecordIndex,
    /** Per record, its entry of `countries`. */
    private readonly countryOf: Uint16Array,
    private readonly countries: readonly { readonly json: string; readonly code: string }[],
    private readonly places: PackedStrings,
    private readonly tails: PackedStrings,
  ) {}

  static async build(mmdb: OpenedMmdb): Promise<GeoTable> {
    const flat = schemaOf(mmdb) === "flat";
    const countryEntries = new Map<string, number>();
    const countries: { json: string; code: string }[] = [];
    const countryOf: number[] = [];
    const places = new PackedStrings();
    const tails = new PackedStrings();
    const index = await indexRecords(mmdb, (record, ordinal) => {
      const geo = flat ? fromFlatRecord(record as FlatRecord) : fromMaxMindRecord(record as MaxMindRecord);
      const countryKey = `${geo.country_code}\n${geo.country}`;
      let country = countryEntries.get(countryKey);
      if (country === undefined) {
        countryEntries.set(countryKey, (country = countries.length));
        countries.push({ json: countryJson(geo), code: geo.country_code });
      }
      countryOf[ordinal] = country;
      places.add(placeJson(geo));
      tails.add(tailJson(geo));
    });
    return new GeoTable(mmdb, flat, index, Uint16Array.from(countryOf), countries, places.seal(), tails.seal());
  }

  /** The address's location, or null where the database has no record for it. */
  locate(ip: ParsedIp): RecordLocation | null {
    const ordinal = this.index.ordinalOf(ip);
    if (ordinal === NO_ORDINAL) return null;
    const country = this.countries[this.countryOf[ordinal]];
    return new RecordLocation(this, ordinal, country.code, country.json + this.places.at(ordinal), this.tails.at(ordinal));
  }

  /** A record's fields, decoded again: for answers as objects and explanations, not the JSON answer. */
  geolocation(ordinal: number): Geolocation {
    const record = this.mmdb.recordAt(this.index.pointers[ordinal]);
    return Object.freeze(this.flat ? fromFlatRecord(record as FlatRecord) : fromMaxMindRecord(record as MaxMindRecord));
  }
}

class RecordLocation implements Located {
  constructor(
    private readonly table: GeoTable,
    private readonly ordinal: number,
    readonly countryCode: string,
    readonly headJson: string,
    readonly tailJson: string,
  ) {}

  get geo(): Geolocation {
    return this.table.geolocation(this.ordinal);
  }
}

/**
 * City-level answer from the city database for the address's family; where that has
 * no record or no country, the country-level database still gives the country.
 */
export class MmdbGeolocation implements GeoLookup {
  private constructor(
    private readonly cityV4: GeoTable,
    private readonly cityV6: GeoTable,
    private readonly country: GeoTable | null,
  ) {}

  /** Maps every record of the databases (one file may serve both families). */
  static async build(cityV4: OpenedMmdb, cityV6: OpenedMmdb, country: OpenedMmdb | null): Promise<MmdbGeolocation> {
    // One after the other: what a table needs only while it is built is freed before the next.
    const v4 = await GeoTable.build(cityV4);
    const v6 = cityV6 === cityV4 ? v4 : await GeoTable.build(cityV6);
    return new MmdbGeolocation(v4, v6, country && (await GeoTable.build(country)));
  }

  lookup(ip: ParsedIp): Located {
    const found = (ip.version === 4 ? this.cityV4 : this.cityV6).locate(ip);
    if ((found !== null && found.countryCode !== "") || !this.country) return found ?? NOT_LOCATED;
    const countryOnly = this.country.locate(ip);
    return countryOnly !== null && countryOnly.countryCode !== "" ? countryOnly : (found ?? NOT_LOCATED);
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
  return MmdbGeolocation.build(cityV4, cityV6, country);
}
