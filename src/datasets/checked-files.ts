import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "./staged-files.ts";

/** Entries kept: a few versions' files; an entry dropped only means one more whole check. */
const KEPT_ENTRIES = 256;

/** A file as it was when its whole check passed, and which check that was ("crc32:…", "ranges:asn"). */
interface CheckedEntry {
  readonly size: number;
  /** Nanoseconds since the epoch, as digits. */
  readonly mtimeNs: string;
  readonly check: string;
}

/**
 * The large data files whose whole-file check (a table's CRC-32, an index's range order, the
 * email pack's checksum) has passed, by the file's identity: device and inode, size and
 * modification time (`datasets/.checked-files.json`). A file `update` wrote and a load checked
 * is not read again at the next start: its identity is looked up instead (one `stat`), so a
 * mapped file needs no read before the first answer. Whatever writes a file changes its
 * modification time, and a file written anew (as `update` and a restore do) is another inode:
 * both are checked whole again. A version's files are shared between versions as hard links,
 * one inode, so a check holds for every version that has the file.
 */
export class CheckedFiles {
  readonly #record: string;
  readonly #entries: Map<string, CheckedEntry>;
  readonly #noted = new Map<string, CheckedEntry>();

  private constructor(record: string, entries: Map<string, CheckedEntry>) {
    this.#record = record;
    this.#entries = entries;
  }

  /** The record of the data directory whose versions live in `versionsDir`; empty when there is none or it cannot be read. */
  static of(versionsDir: string): CheckedFiles {
    const record = join(versionsDir, ".checked-files.json");
    return new CheckedFiles(record, readRecord(record));
  }

  /** Whether `file` is as it was when `check` last passed on it. */
  passed(file: string, check: string): boolean {
    const identity = identityOf(file);
    if (identity === null) return false;
    const entry = this.#entries.get(identity.key);
    return (
      entry !== undefined && entry.check === check && entry.size === identity.size && entry.mtimeNs === identity.mtimeNs
    );
  }

  /** `check` has just passed on the whole of `file`. */
  note(file: string, check: string): void {
    const identity = identityOf(file);
    if (identity !== null) this.#noted.set(identity.key, { size: identity.size, mtimeNs: identity.mtimeNs, check });
  }

  /**
   * Adds what was noted to the record on disk, when anything was. A data directory this user
   * may not write keeps its whole checks at every load, as before the record.
   */
  save(): void {
    if (this.#noted.size === 0) return;
    const entries = readRecord(this.#record);
    for (const [key, entry] of this.#noted) {
      entries.delete(key);
      entries.set(key, entry);
    }
    const kept = [...entries].slice(-KEPT_ENTRIES);
    try {
      writeFileAtomically(this.#record, JSON.stringify(Object.fromEntries(kept)));
    } catch {
      // Unwritable: the next load checks these files whole again.
    }
    this.#noted.clear();
  }
}

function identityOf(file: string): { key: string; size: number; mtimeNs: string } | null {
  const stat = statSync(file, { throwIfNoEntry: false, bigint: true });
  if (!stat?.isFile()) return null;
  return { key: `${stat.dev}:${stat.ino}`, size: Number(stat.size), mtimeNs: String(stat.mtimeNs) };
}

function readRecord(file: string): Map<string, CheckedEntry> {
  try {
    const document = JSON.parse(readFileSync(file, "utf8")) as Record<string, CheckedEntry>;
    return new Map(
      Object.entries(document).filter(
        ([, e]) => typeof e?.size === "number" && typeof e.mtimeNs === "string" && typeof e.check === "string",
      ),
    );
  } catch {
    return new Map();
  }
}
