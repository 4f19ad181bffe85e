import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { dataFiles, versionFiles } from "./data-layout.ts";
import { type Manifest, readManifest } from "./manifest.ts";
import { UpdateLock } from "./update-lock.ts";

/** Version folder names sort by time: an ISO timestamp with a tag. */
export function newVersionName(tag: string, now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, "-")}-${tag}`;
}

export function currentVersion(dataDir: string): string | null {
  try {
    return basename(readlinkSync(dataFiles(dataDir).current));
  } catch {
    return null;
  }
}

export function versionManifest(dataDir: string, version: string): Promise<Manifest | null> {
  return readManifest(versionFiles(join(dataFiles(dataDir).versions, version)).manifest);
}

/** Points `current` at datasets/<version> in one rename, so a reader sees the old or the new, never neither. */
function pointCurrentAt(dataDir: string, version: string): void {
  const link = dataFiles(dataDir).current;
  const temporary = `${link}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  symlinkSync(join("datasets", version), temporary);
  renameSync(temporary, link);
}

/** The version and the ones it was built on, newest first, as far as their folders exist. */
async function lineage(dataDir: string, version: string): Promise<string[]> {
  const line: string[] = [];
  for (let at: string | null = version; at !== null && !line.includes(at); ) {
    const manifest = await versionManifest(dataDir, at);
    if (!manifest) break;
    line.push(at);
    at = manifest.base;
  }
  return line;
}

/**
 * Makes `version` current, then keeps it and the `keep − 1` versions it was built on
 * (what `--rollback` can step back through) and removes every other version.
 */
export async function activateVersion(dataDir: string, version: string, keep: number): Promise<string[]> {
  const files = dataFiles(dataDir);
  pointCurrentAt(dataDir, version);
  // Older riskcheck kept one "previous" link; history now follows each version's base.
  rmSync(files.previous, { force: true });
  const kept = (await lineage(dataDir, version)).slice(0, keep);
  const removed: string[] = [];
  for (const name of readdirSync(files.versions)) {
    if (kept.includes(name) || name.startsWith(".")) continue;
    rmSync(join(files.versions, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Steps back to the version the current one was built on; each call goes one further, while `older` says one is kept. */
export async function rollback(dataDir: string): Promise<{ current: string; from: string; older: boolean }> {
  const files = dataFiles(dataDir);
  const from = currentVersion(dataDir);
  if (!from) throw new Error(`${files.current}: no current dataset version`);
  const base = (await versionManifest(dataDir, from))?.base ?? null;
  if (!base || !existsSync(join(files.versions, base)))
    throw new Error(`${from} is the oldest dataset version kept; there is nothing to roll back to`);
  pointCurrentAt(dataDir, base);
  const older = (await versionManifest(dataDir, base))?.base ?? null;
  return { current: base, from, older: older !== null && existsSync(join(files.versions, older)) };
}

export interface VersionListing {
  readonly name: string;
  readonly current: boolean;
  readonly manifest: Manifest | null;
}

/** Every kept version, newest first. */
export async function listVersions(dataDir: string): Promise<VersionListing[]> {
  const files = dataFiles(dataDir);
  if (!existsSync(files.versions)) return [];
  const current = currentVersion(dataDir);
  const names = readdirSync(files.versions)
    .filter((n) => !n.startsWith("."))
    .sort()
    .reverse();
  return Promise.all(
    names.map(async (name) => ({ name, current: name === current, manifest: await versionManifest(dataDir, name) })),
  );
}

/**
 * Runs `work` while holding the data directory's update lock (UpdateLock), so an `update`
 * from the CLI and a refresh inside `serve` never build or swap versions at the same time.
 * Staging folders of an update that died are removed.
 */
export async function withUpdateLock<T>(dataDir: string, work: () => Promise<T>): Promise<T> {
  const files = dataFiles(dataDir);
  mkdirSync(files.versions, { recursive: true });
  const lock = UpdateLock.take(files.versions);
  try {
    for (const name of readdirSync(files.versions)) {
      if (name.startsWith(".staging-")) rmSync(join(files.versions, name), { recursive: true, force: true });
    }
    return await work();
  } finally {
    lock.release();
  }
}
