import { iso31662 } from "iso-3166";
import type { AddressRange } from "../address/address-range.ts";
import type { ParsedIp } from "../address/parse.ts";
import { countryName } from "../geo/country.ts";
import { type Located, UNKNOWN_LOCATION, located } from "../geo/geo-record.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";

/** Where a relay's egress range says its users are: ISO 3166-1 country, ISO 3166-2 region ("US-CA"), city; '' when not said. */
export interface Place {
  readonly country: string;
  readonly region: string;
  readonly city: string;
}

/** A relay's egress range with the place its geofeed row gives, and the list it came from. */
export interface RelayPlace extends Place {
  readonly source: string;
}

const REGION_NAMES = new Map(iso31662.map((s) => [s.code, s.name]));

/** The geofeed rows of every privacy relay's egress ranges; where rows overlap, the narrowest speaks (RFC 8805). */
export class RelayPlaceIndexBuilder {
  private readonly ranges = new RangeIndexBuilder<{ place: RelayPlace; size: bigint }>();
  /** One payload per place and range size, so rows of a place share it (pass one RelayPlace object per place). */
  private readonly payloads = new Map<RelayPlace, Map<bigint, { place: RelayPlace; size: bigint }>>();

  add(range: AddressRange, place: RelayPlace): void {
    const size = range.last - range.first;
    let bySize = this.payloads.get(place);
    if (bySize === undefined) this.payloads.set(place, (bySize = new Map()));
    let payload = bySize.get(size);
    if (payload === undefined) bySize.set(size, (payload = { place, size }));
    this.ranges.add(range, payload);
  }

  build(meta: Record<string, unknown> = {}): IndexFile {
    const rows: [string, string, string, string][] = [];
    const ids = new Map<string, number>();
    const columns = this.ranges.build(
      (covering) => covering.reduce((narrowest, c) => (c.size < narrowest.size ? c : narrowest)).place,
      ({ source, country, region, city }) => {
        const row: [string, string, string, string] = [source, country, region, city];
        const key = row.join("\n");
        let id = ids.get(key);
        if (id === undefined) {
          id = rows.push(row) - 1;
          ids.set(key, id);
        }
        return id;
      },
    );
    return { kind: "places", columns, payload: Uint32Array.from(rows.keys()), text: "", meta: { ...meta, rows } };
  }
}

/**
 * Relay exits' places, each row's answer parts made once when the snapshot loads. A
 * geofeed row speaks for where the relay's users are, which a geolocation database,
 * seeing a data centre, gets wrong; the database's answer stands where it agrees on
 * the country and city, since it also knows the coordinates and time zone.
 */
export class RelayPlaces {
  private readonly ranges: RangeIndex;
  private readonly rows: readonly { readonly place: RelayPlace; readonly located: Located }[];

  constructor(file: IndexFile) {
    this.ranges = new RangeIndex(file.columns);
    this.rows = ((file.meta.rows as [string, string, string, string][] | undefined) ?? []).map(([source, country, region, city]) => ({
      place: { source, country, region, city },
      located: located({
        ...UNKNOWN_LOCATION,
        country: countryName(country),
        country_code: country,
        region: region.slice(3),
        region_name: REGION_NAMES.get(region) ?? "",
        city,
      }),
    }));
  }

  get size(): number {
    return this.ranges.size;
  }

  /** The row for an address, or null. */
  placeOf(ip: ParsedIp): RelayPlace | null {
    const entry = this.ranges.lookup(ip);
    return entry === NOT_FOUND ? null : this.rows[entry].place;
  }

  /** Where a relay exit's users are: its row's place, or the database's answer where that agrees; null outside every relay. */
  locate(ip: ParsedIp, fromDatabase: Located): Located | null {
    const entry = this.ranges.lookup(ip);
    if (entry === NOT_FOUND) return null;
    const row = this.rows[entry];
    const db = fromDatabase.geo;
    const agrees = row.place.city !== "" && db.country_code === row.place.country && db.city.toLowerCase() === row.place.city.toLowerCase();
    return agrees ? fromDatabase : row.located;
  }
}

export const NO_RELAY_PLACES = new RelayPlaces(new RelayPlaceIndexBuilder().build());
