import type { AddressRange } from "../address/address-range.ts";
import type { ParsedIp } from "../address/parse.ts";
import { countryName } from "../geo/country.ts";
import { type Geolocation, type Located, UNKNOWN_LOCATION, located } from "../geo/geo-record.ts";
import { RangeIndexBuilder } from "./range-index-builder.ts";
import type { IndexFile } from "./range-index-file.ts";
import { NOT_FOUND, RangeIndex } from "./range-index.ts";

/** Where an RFC 8805 geofeed row says a range is: ISO 3166-1 country, ISO 3166-2 region ("US-CA"), city; '' when not said. */
export interface Place {
  readonly country: string;
  readonly region: string;
  readonly city: string;
}

/**
 * What the network's owner declares about where a range is, and the list that says it: a
 * geofeed row's place, or a provider's region names, most specific first ("aws:us-east-1-bue-1",
 * "aws:us-east-1"), which the curated region table turns into a place when the snapshot loads.
 */
export type Declaration = { readonly source: string } & (
  | { readonly place: Place }
  | { readonly regions: readonly string[] }
);

/** A compiled row: source, country, region, city, and the region names joined by spaces ('' for a geofeed row). */
type Row = [string, string, string, string, string];

/**
 * Every declared location of every list; where declarations overlap, the narrowest prefix
 * speaks (RFC 8805), and of two as narrow, a geofeed row before a provider's region.
 */
export class DeclaredLocationIndexBuilder {
  private readonly ranges = new RangeIndexBuilder<{ declaration: Declaration; size: bigint; rank: number }>();
  /** One payload per declaration and range size, so ranges of a declaration share it (pass one object per declaration). */
  private readonly payloads = new Map<
    Declaration,
    Map<bigint, { declaration: Declaration; size: bigint; rank: number }>
  >();

  add(range: AddressRange, declaration: Declaration): void {
    const size = range.last - range.first;
    let bySize = this.payloads.get(declaration);
    if (bySize === undefined) this.payloads.set(declaration, (bySize = new Map()));
    let payload = bySize.get(size);
    if (payload === undefined)
      bySize.set(size, (payload = { declaration, size, rank: "place" in declaration ? 0 : 1 }));
    this.ranges.add(range, payload);
  }

  build(meta: Record<string, unknown> = {}): IndexFile {
    const rows: Row[] = [];
    const ids = new Map<string, number>();
    const columns = this.ranges.build(
      (covering) =>
        covering.reduce((best, c) => (c.size < best.size || (c.size === best.size && c.rank < best.rank) ? c : best))
          .declaration,
      (d) => {
        const row: Row =
          "place" in d
            ? [d.source, d.place.country, d.place.region, d.place.city, ""]
            : [d.source, "", "", "", d.regions.join(" ")];
        const key = row.join("\n");
        let id = ids.get(key);
        if (id === undefined) {
          id = rows.push(row) - 1;
          ids.set(key, id);
        }
        return id;
      },
    );
    return {
      kind: "places",
      columns,
      payload: Uint32Array.from(rows.keys()),
      text: new Uint8Array(0),
      meta: { ...meta, rows },
    };
  }
}

/** What a compiled row stands for once the snapshot has loaded it. */
interface LoadedRow {
  /** The geofeed row's place; null for a provider's region. */
  readonly place: Place | null;
  readonly source: string;
  /** The region's place from the table (which the answer takes whole), or the geofeed row's; null for a region the table lacks. */
  readonly located: Located | null;
  /** What the location came from: "aws:eu-central-1", "geofeed:<source>"; for a region the table lacks, the region's name. */
  readonly name: string;
}

/**
 * Declared locations, each row's answer parts made once when the snapshot loads: one range
 * lookup per address. A provider's region gives the table's whole place. A geofeed row
 * gives country, region and city, and nothing else: the database's answer stands where it
 * names the same country and city, since it also knows the coordinates and time zone.
 */
export class DeclaredLocations {
  private readonly ranges: RangeIndex;
  private readonly rows: readonly LoadedRow[];
  /** The providers' regions the table has no row for: their ranges keep the database's location. */
  readonly unplaced: readonly string[];

  /**
   * `regions`: the curated region table, by name ("aws:eu-central-1"); `regionNames`: each ISO 3166-2 code's name,
   * which a geofeed row does not give.
   */
  constructor(file: IndexFile, regions: ReadonlyMap<string, Geolocation>, regionNames: ReadonlyMap<string, string>) {
    this.ranges = new RangeIndex(file.columns);
    this.rows = ((file.meta.rows as string[][] | undefined) ?? []).map(
      ([source, country, region, city, names = ""]): LoadedRow => {
        if (names === "") {
          const place = { country, region, city };
          const geo = {
            ...UNKNOWN_LOCATION,
            country: countryName(country),
            country_code: country,
            region: region.slice(3),
            region_name: regionNames.get(region) ?? "",
            city,
          };
          return { place, source, located: located(geo), name: `geofeed:${source}` };
        }
        const name = names.split(" ").find((n) => regions.has(n));
        return {
          place: null,
          source,
          located: name ? located(regions.get(name)!) : null,
          name: name ?? names.split(" ").at(-1)!,
        };
      },
    );
    this.unplaced = [
      ...new Set(this.rows.filter((r) => r.place === null && r.located === null).map((r) => r.name)),
    ].sort();
  }

  get size(): number {
    return this.ranges.size;
  }

  /** The declaration covering an address (NOT_FOUND where none does), for `locatedAt` and `sourceAt`. */
  entryOf(ip: ParsedIp): number {
    return this.ranges.lookup(ip);
  }

  /** Where the address of `entry` is: its declaration's place, or the database's answer where none speaks. */
  locatedAt(entry: number, fromDatabase: Located): Located {
    const row = entry === NOT_FOUND ? null : this.rows[entry];
    if (row === null || row.located === null) return fromDatabase;
    if (row.place === null || row.place.city === "") return row.located;
    const db = fromDatabase.geo;
    return db.country_code === row.place.country && db.city.toLowerCase() === row.place.city.toLowerCase()
      ? fromDatabase
      : row.located;
  }

  /** What `locatedAt` took the location from: "aws:eu-central-1", "geofeed:<source>"; '' for the database. */
  sourceAt(entry: number): string {
    const row = entry === NOT_FOUND ? null : this.rows[entry];
    return row?.located ? row.name : "";
  }

  /** The geofeed row of `entry`, with its list, or null. */
  placeAt(entry: number): (Place & { readonly source: string }) | null {
    const row = entry === NOT_FOUND ? null : this.rows[entry];
    return row?.place ? { ...row.place, source: row.source } : null;
  }
}

export const NO_DECLARED_LOCATIONS = new DeclaredLocations(
  new DeclaredLocationIndexBuilder().build(),
  new Map(),
  new Map(),
);
