import { copyFileSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Writes beside and renames over, so a reader sees the old file or the new one, and a
 * hard link shared with another dataset version is never written through. Without
 * `makeDirectory`, a missing folder is an ENOENT rather than made.
 */
export function writeFileAtomically(
  path: string,
  data: Uint8Array | string,
  { makeDirectory = true }: { readonly makeDirectory?: boolean } = {},
): void {
  if (makeDirectory) mkdirSync(dirname(path), { recursive: true });
  // The thread too: a load's Worker and the serving thread may write the same file at once.
  const { threadId } = process.getBuiltinModule("node:worker_threads");
  const temporary = `${path}.tmp-${process.pid}-${threadId}`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/** `to` becomes the same file as `from`: a hard link, or a copy where linking is not possible. */
export function linkOrCopy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  rmSync(to, { force: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** A copy of a folder tree made of hard links (copies where linking is not possible). */
export function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) linkTree(source, join(to, name));
    else linkOrCopy(source, join(to, name));
  }
}
