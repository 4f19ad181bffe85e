import { dlopen } from "bun:ffi";
import { readFileSync, realpathSync } from "node:fs";
import { nextTurn } from "../time/next-turn.ts";

/** Linux's madvise advice: the range's pages leave the process; a read faults them in again from the file. */
const MADV_DONTNEED = 4;
/** Bytes per call, and a turn of the event loop between calls: a 38 MB table's pages take ~6 ms to drop. */
const SLICE_BYTES = 8 << 20;

type Madvise = (address: number, length: number, advice: number) => number;

let madvise: Madvise | null | undefined;

/** libc's madvise, or null where there is none to call (not Linux with glibc). */
function libcMadvise(): Madvise | null {
  if (madvise !== undefined) return madvise;
  try {
    const { symbols } = dlopen("libc.so.6", { madvise: { args: ["usize", "usize", "i32"], returns: "i32" } });
    madvise = (address, length, advice) => symbols.madvise(address, length, advice) as number;
  } catch {
    madvise = null;
  }
  return madvise;
}

/**
 * Drops this process's resident pages of every file it maps from `folder` (a replaced version),
 * a slice at a time; returns the bytes of mapping gone through. The mappings themselves stay
 * until the collector frees the snapshot that holds them, which may take many seconds under
 * load: till then the two versions' touched pages would both count in RSS. They are private
 * file mappings never written, so a request still reading the old version (one awaiting DNS)
 * reads the same bytes, faulted in again from the page cache. Only file mappings are touched:
 * the advice on anonymous memory would zero it. Begun on a turn of its own: the caller has just
 * swapped the snapshot in, and the maps (a thousand lines) take a millisecond to read and match.
 */
export async function releaseVersionPages(folder: string): Promise<number> {
  const advise = libcMadvise();
  if (advise === null) return 0;
  await nextTurn();
  const prefix = `${realFolder(folder)}/`;
  let maps: string;
  try {
    maps = readFileSync("/proc/self/maps", "utf8");
  } catch {
    return 0;
  }
  let released = 0;
  for (const line of maps.split("\n")) {
    // start-end perms offset dev inode path; a file's mapping has an inode and an absolute path.
    const mapping = line.match(/^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ [1-9]\d*\s+(\/.*)$/);
    if (mapping === null || !mapping[3]!.startsWith(prefix)) continue;
    const start = Number.parseInt(mapping[1]!, 16);
    const end = Number.parseInt(mapping[2]!, 16);
    for (let at = start; at < end; at += SLICE_BYTES) {
      advise(at, Math.min(SLICE_BYTES, end - at), MADV_DONTNEED);
      await nextTurn();
    }
    released += end - start;
  }
  return released;
}

/** The folder as the kernel names its files in /proc/self/maps: symbolic links resolved. */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
