import { COUNTRY_PLACES } from "./country-places.ts";
import { type Geolocation, type Located, NOT_LOCATED, UNKNOWN_LOCATION, tailJson } from "./geo-record.ts";
import { NO_ORDINAL, RecordTable } from "./record-table.ts";
import type { RecordTableFile } from "./record-table-file.ts";
import type { ParsedIp } from "../address/parse.ts";

export { type Geolocation, type Located, NOT_LOCATED, UNKNOWN_LOCATION } from "./geo-record.ts";

/** Where an address is. Routes and tests depend on this, not on MMDB files. */
export interface GeoLookup {
  lookup(ip: ParsedIp): Located;
}

/** The strings a geolocation table keeps per record: the country code and the answer's three JSON parts. */
const COUNTRY_CODE = 0;
const COUNTRY_JSON = 1;
const PLACE_JSON = 2;
const TAIL_JSON = 3;
/** A few hundred values among all records: made into strings once, on load. */
const COUNTRY_COLUMNS = [COUNTRY_CODE, COUNTRY_JSON];

/** The IP answer's JSON parts for every record of one city or country database, read by record number. */
class GeoTable {
  constructor(private readonly table: RecordTable) {}

  /** The address's location, or null where the database has no record for it. */
  locate(ip: ParsedIp): RecordLocation | null {
    const ordinal = this.table.ordinalOf(ip);
    if (ordinal === NO_ORDINAL) return null;
    const t = this.table;
    return new RecordLocation(
      t.cell(ordinal, COUNTRY_CODE),
      t.cell(ordinal, COUNTRY_JSON) + t.cell(ordinal, PLACE_JSON),
      t.cell(ordinal, TAIL_JSON),
    );
  }
}

class RecordLocation implements Located {
  constructor(
    readonly countryCode: string,
    readonly headJson: string,
    readonly tailJson: string,
  ) {}

  /** The record's fields, read back from its JSON parts: for answers as objects and explanations, not the JSON answer. */
  get geo(): Geolocation {
    const g = JSON.parse(`{${this.headJson}${this.tailJson.slice(0, -1)}}`) as Geolocation;
    return Object.freeze({
      country: g.country,
      country_code: g.country_code,
      region: g.region,
      region_name: g.region_name,
      city: g.city,
      subdivisions: g.subdivisions,
      zip: g.zip,
      latitude: g.latitude,
      longitude: g.longitude,
      timezone: g.timezone,
    });
  }
}

/** A record's tail without a place: no postcode, no coordinates (0, 0: "null island"), no zone. */
const NO_PLACE_TAIL = tailJson(UNKNOWN_LOCATION);

/** Each country's tail as an address located to the country alone answers it: its representative point and only zone. */
const COUNTRY_TAILS: ReadonlyMap<string, string> = new Map(
  Object.entries(COUNTRY_PLACES).map(([code, [latitude, longitude, timezone]]) => [
    code,
    tailJson({ ...UNKNOWN_LOCATION, latitude, longitude, timezone }),
  ]),
);

/** A country database's record, given its country's place when it has none of its own. */
function placedInCountry(found: RecordLocation): RecordLocation {
  const tail = found.tailJson === NO_PLACE_TAIL ? COUNTRY_TAILS.get(found.countryCode) : undefined;
  return tail === undefined ? found : new RecordLocation(found.countryCode, found.headJson, tail);
}

/**
 * City-level answer from the city database for the address's family; where that has
 * no record or no country, the country-level database still gives the country, at the
 * country's representative point rather than at 0, 0.
 */
export class CompiledGeolocation implements GeoLookup {
  private constructor(
    private readonly cityV4: GeoTable,
    private readonly cityV6: GeoTable,
    private readonly country: GeoTable | null,
  ) {}

  /** Opens the compiled tables (one file may serve both families). */
  static open(cityV4: RecordTableFile, cityV6: RecordTableFile, country: RecordTableFile | null): CompiledGeolocation {
    const open = (file: RecordTableFile) => new GeoTable(RecordTable.open(file, COUNTRY_COLUMNS));
    const v4 = open(cityV4);
    const v6 = cityV6 === cityV4 ? v4 : open(cityV6);
    return new CompiledGeolocation(v4, v6, country && open(country));
  }

  lookup(ip: ParsedIp): Located {
    const found = (ip.version === 4 ? this.cityV4 : this.cityV6).locate(ip);
    if ((found !== null && found.countryCode !== "") || !this.country) return found ?? NOT_LOCATED;
    const countryOnly = this.country.locate(ip);
    return countryOnly !== null && countryOnly.countryCode !== ""
      ? placedInCountry(countryOnly)
      : (found ?? NOT_LOCATED);
  }
}
