import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { DatasetError } from "./dataset-error.ts";

/** A data file's bytes, and whether they are mapped from disk or were read into memory. */
export interface DataFileBytes {
  readonly bytes: Uint8Array;
  readonly mapped: boolean;
}

/** Why Bun.mmap, which opens read-write, fails on a file that can still be read. */
const READ_ONLY = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * A dataset file's bytes mapped from disk (`Bun.mmap`, private: the pages are the page
 * cache's, shared with every process that maps the file and dropped by the kernel under
 * pressure; a write would stay in this process and never reach the file). The mapping goes
 * when nothing references the bytes any more. A file this user may read but not write (a
 * read-only mount, a version written by another user) is read into memory instead; a missing
 * or unreadable one is a DatasetError naming it. The file must never be truncated or
 * rewritten in place while mapped: `update` writes new files and renames them.
 */
export function mapDataFile(path: string): DataFileBytes {
  try {
    return { bytes: Bun.mmap(path, { shared: false }), mapped: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // An empty file cannot be mapped.
    if (code === "EINVAL" && statSync(path, { throwIfNoEntry: false })?.size === 0)
      return { bytes: new Uint8Array(0), mapped: false };
    if (code !== undefined && READ_ONLY.has(code)) return { bytes: readAligned(path), mapped: false };
    throw unreadable(path, err as NodeJS.ErrnoException);
  }
}

/** The file read into a buffer of its own, so that its 8-byte aligned sections can be typed arrays. */
function readAligned(path: string): Uint8Array {
  let read: Buffer;
  try {
    read = readFileSync(path);
  } catch (err) {
    throw unreadable(path, err as NodeJS.ErrnoException);
  }
  return read.byteOffset % 8 === 0 ? read : new Uint8Array(read);
}

function unreadable(path: string, err: NodeJS.ErrnoException): DatasetError {
  return err.code === "ENOENT"
    ? new DatasetError(path, "missing")
    : new DatasetError(path, `cannot be read (${err.code ?? err.message})`, "check its permissions");
}

/** Bytes per read of `eachPiece`. */
const PIECE_BYTES = 1 << 20;

/**
 * Hands the file's bytes to `each` in order, a piece at a time through one small buffer:
 * a checksum that reads the file this way touches none of its mapped pages, so a process
 * that maps it holds (in RSS) only the pages its lookups read. The buffer is reused: `each`
 * must not keep a piece.
 */
export function eachPiece(path: string, each: (piece: Uint8Array) => void): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw unreadable(path, err as NodeJS.ErrnoException);
  }
  try {
    const buffer = new Uint8Array(PIECE_BYTES);
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) each(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}
