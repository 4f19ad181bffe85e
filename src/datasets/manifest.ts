import { existsSync, renameSync, writeFileSync } from "node:fs";

/** What one source contributed to a dataset version, and how to ask for it again. */
export interface SourceRecord {
  /** Where it came from: a URL, or the npm package it was installed from. */
  readonly origin: string;
  readonly fetchedAt: string;
  readonly etag?: string;
  readonly lastModified?: string;
  /** Lines or ranges it yielded, for the shrink check of the next update. */
  readonly entries?: number;
  readonly bytes?: number;
  readonly licence?: string;
  /** File under raw/ holding its last good download. */
  readonly raw?: string;
}

export interface Manifest {
  readonly version: string;
  readonly created: string;
  readonly sources: Readonly<Record<string, SourceRecord>>;
}

export async function readManifest(file: string): Promise<Manifest | null> {
  if (!existsSync(file)) return null;
  try {
    return (await Bun.file(file).json()) as Manifest;
  } catch {
    return null;
  }
}

/** Written beside and renamed over: in a staging copy the old file is a hard link to the current version's. */
export async function writeManifest(file: string, manifest: Manifest): Promise<void> {
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temporary, file);
}
