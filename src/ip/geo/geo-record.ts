import { countryFlag } from "./country.ts";

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
