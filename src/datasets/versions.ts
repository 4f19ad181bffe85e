import { existsSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { dataFiles } from "./data-layout.ts";

/** Version folder names sort by time: an ISO timestamp with a tag. */
export function newVersionName(tag: string, now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, "-")}-${tag}`;
}

function linkTarget(link: string): string | null {
  try {
    return basename(readlinkSync(link));
  } catch {
    return null;
  }
}

export function currentVersion(dataDir: string): string | null {
  return linkTarget(dataFiles(dataDir).current);
}

export function previousVersion(dataDir: string): string | null {
  return linkTarget(dataFiles(dataDir).previous);
}

/** Points `link` at datasets/<version> in one rename, so a reader sees the old or the new, never neither. */
function swapLink(dataDir: string, link: string, version: string): void {
  const temporary = `${link}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  symlinkSync(join("datasets", version), temporary);
  renameSync(temporary, link);
}

/**
 * Makes `version` current and the former current the previous one, then removes
 * versions that are neither (and stale staging folders).
 */
export function activateVersion(dataDir: string, version: string): { previous: string | null } {
  const files = dataFiles(dataDir);
  const before = currentVersion(dataDir);
  swapLink(dataDir, files.current, version);
  if (before && before !== version) swapLink(dataDir, files.previous, before);
  const keep = new Set([version, before ?? version]);
  for (const name of readdirSync(files.versions)) {
    if (!keep.has(name) && !name.startsWith(".staging")) rmSync(join(files.versions, name), { recursive: true, force: true });
  }
  return { previous: before };
}

/** Swaps current and previous. */
export function rollback(dataDir: string): { current: string; previous: string } {
  const files = dataFiles(dataDir);
  const before = currentVersion(dataDir);
  const target = previousVersion(dataDir);
  if (!before || !target || !existsSync(join(files.versions, target))) throw new Error(`${files.previous}: no previous dataset version to roll back to`);
  swapLink(dataDir, files.current, target);
  swapLink(dataDir, files.previous, before);
  return { current: target, previous: before };
}
