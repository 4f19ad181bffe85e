import { type MmdbRecord, parseMmdb, verifyRecords } from "../../../ip/geo/mmdb.ts";
import { DatasetError } from "../../../ip/dataset-error.ts";
import { ContentError, type ParsedSource } from "./parsed-source.ts";
import { MB, type SourceFormatDescriptor } from "./source-format.ts";

export const MMDB_TARGETS = ["city", "city-ipv4", "city-ipv6", "country", "asn-isp"] as const;
export type MmdbTarget = (typeof MMDB_TARGETS)[number];

/** Addresses that every real database of the kind answers. */
const PROBES_V4 = ["8.8.8.8", "1.1.1.1", "81.2.69.142", "2.125.160.216"];
const PROBES_V6 = ["2001:4860:4860::8888", "2a03:2880:f12f:83:face:b00c:0:25de", "2001:218::1"];

/** What a record must carry to be of use for each target. */
const USEFUL: Record<MmdbTarget, (r: Record<string, unknown>) => boolean> = {
  city: hasCountry,
  "city-ipv4": hasCountry,
  "city-ipv6": hasCountry,
  country: hasCountry,
  "asn-isp": (r) => typeof r.autonomous_system_number === "number",
};

function hasCountry(r: Record<string, unknown>): boolean {
  return (
    typeof r.country_code === "string" || typeof r.country === "object" || typeof r.registered_country === "object"
  );
}

/**
 * An MaxMind DB file: it must open, have every record decodable (one walk of the whole
 * tree) and answer probe addresses with records of the kind it is to feed.
 * Entries are its networks; its date is its build date.
 */
export function parseMmdbSource(bytes: Uint8Array, target: MmdbTarget): ParsedSource<null> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const mmdb = parseMmdb(buffer, "download");
    const { networks } = verifyRecords(mmdb);
    const probes =
      target === "city-ipv4" || mmdb.reader.metadata.ipVersion === 4
        ? PROBES_V4
        : target === "city-ipv6"
          ? PROBES_V6
          : [...PROBES_V4, ...PROBES_V6];
    const answered = probes.some((ip) => {
      const record = mmdb.reader.get(ip) as MmdbRecord | null;
      return record !== null && USEFUL[target](record as Record<string, unknown>);
    });
    if (!answered) throw new ContentError(`an MMDB that answers none of the probe addresses with ${target} data`);
    return { value: null, entries: networks, dataDate: mmdb.buildDate };
  } catch (err) {
    if (err instanceof DatasetError) throw new ContentError(err.problem);
    throw err;
  }
}

/** A GeoLite2 City MMDB is ~60 MB, and checking one costs ~4× its size. */
export const MMDB_FORMAT: SourceFormatDescriptor<"mmdb", null> = {
  name: "mmdb",
  targets: MMDB_TARGETS,
  maxBytes: 160 * MB,
  outputs: ["city-ipv4", "city-ipv6", "country", "asn-isp"],
  labels: false,
  parse: (bytes, feeds) => parseMmdbSource(bytes, feeds as MmdbTarget),
};
