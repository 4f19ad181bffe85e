import { existsSync } from "node:fs";
import { writeFileAtomically } from "./staged-files.ts";

/** A compiled table of a version, as its manifest records it. */
export interface CompiledTable {
  /** Its path inside the version folder. */
  readonly file: string;
  readonly sha256: string;
  /** CRC-32 of the file: what a load checks, ten times faster than the SHA-256 (kept for readers that predate it). */
  readonly crc32?: number;
  readonly bytes: number;
  /** The layout it was written in (`RECORD_TABLE_LAYOUT`). */
  readonly layout: number;
}

/** How the date of a source's data is known. */
export type DataDateFrom = "content" | "package" | "last-modified";

/** One source's data in a dataset version, and how to ask for it again. */
export interface SourceRecord {
  /** Where it came from: a URL without credentials, or the npm package and version. */
  readonly origin: string;
  /** The source's URL as declared, without credentials: a new URL makes the data not comparable. */
  readonly url: string;
  readonly format: string;
  readonly feeds: string;
  /** For a list that feeds a counter: reports a listing counts as, and the lists it already counts. */
  readonly weight?: number;
  readonly includes?: readonly string[];
  /** For a disposable-domain list: whether it asks for evidence per entry. */
  readonly verifies?: boolean;
  /** For a free-provider list: whether it names only widely used providers. */
  readonly popular?: boolean;
  /** For a disposable-domain list that publishes only what is current: its names are remembered for `retentionMs` after they leave it. */
  readonly kind?: "rolling";
  readonly retentionMs?: number;
  /** How often the publisher renews the data, in ms, when the sources file says. */
  readonly cadenceMs?: number | null;
  /** For a list of benign infrastructure: its class ("seo:googlebot", "cloud:aws"). */
  readonly class?: string | null;
  readonly licence: string;
  /** When the data held now was fetched. */
  readonly fetchedAt: string;
  /** When an update last confirmed it (a download, or an answer that it had not changed). */
  readonly checkedAt: string;
  /** The date of the data itself: the file's own date, the package's release, or Last-Modified. */
  readonly dataDate: string | null;
  readonly dataDateFrom: DataDateFrom | null;
  readonly etag?: string;
  readonly lastModified?: string;
  readonly packageVersion?: string;
  /** Entries it yielded (networks for an MMDB). */
  readonly entries: number;
  readonly bytes: number;
  /** File under raw/ holding the data. */
  readonly raw: string;
}

/** One compiled output of a version. */
export interface OutputRecord {
  /** Domains, ranges, AS numbers or networks, whichever the output holds. */
  readonly count: number;
  /** The sources it was composed from. */
  readonly sources: readonly string[];
  /** For an MMDB, the table `serve` reads, compiled from it. */
  readonly compiled?: CompiledTable;
}

export interface Manifest {
  readonly version: string;
  readonly created: string;
  /** The version this one was built on; `update --rollback` returns to it. */
  readonly base: string | null;
  readonly sources: Readonly<Record<string, SourceRecord>>;
  readonly outputs: Readonly<Record<string, OutputRecord>>;
}

/** The manifest, or null when the file is missing or unreadable; fields older versions lacked are filled in. */
export async function readManifest(file: string): Promise<Manifest | null> {
  if (!existsSync(file)) return null;
  try {
    const manifest = (await Bun.file(file).json()) as Partial<Manifest>;
    return { version: "", created: "", base: null, sources: {}, outputs: {}, ...manifest };
  } catch {
    return null;
  }
}

export function writeManifest(file: string, manifest: Manifest): void {
  writeFileAtomically(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
