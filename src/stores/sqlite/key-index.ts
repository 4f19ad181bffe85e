import type { Database, Statement } from "bun:sqlite";
import type { ChangeSignal } from "./change-signal.ts";
import { type KeyIndex, type KeyIndexSource, keyIndexOf } from "../../keys/key-authenticator.ts";
import { KEY_COLUMNS, type KeyRow, keyEntryOf } from "../key-row.ts";

/** Catches writers that did not bump the signal, such as a hand-run sqlite3 shell. */
const DATA_VERSION_POLL_MS = 1_000;

/**
 * The keys of a SQLite database, reread in the request that first sees the change
 * signal moved: a revocation by the CLI in another process holds from the very next
 * request. The signal costs one memory read per request.
 */
export class SqliteKeyIndex implements KeyIndexSource {
  private index: KeyIndex = new Map();
  private seenSignal = -1;
  private seenDataVersion = -1;
  private lastPoll = 0;
  private readonly dataVersion: Statement<{ data_version: number }, []>;
  private readonly rows: Statement<KeyRow, []>;

  constructor(
    db: Database,
    private readonly signal: ChangeSignal,
    private readonly now: () => number = Date.now,
  ) {
    this.dataVersion = db.query("PRAGMA data_version");
    this.rows = db.query(`SELECT ${KEY_COLUMNS} FROM api_keys`);
    this.reload();
  }

  current(): KeyIndex {
    if (this.signal.read() !== this.seenSignal || this.now() - this.lastPoll > DATA_VERSION_POLL_MS)
      this.refreshIfChanged();
    return this.index;
  }

  /** A key created by another process a moment ago: look once more before refusing. */
  afterMiss(): KeyIndex {
    this.refreshIfChanged();
    return this.index;
  }

  private refreshIfChanged(): void {
    this.lastPoll = this.now();
    const version = this.dataVersion.get()!.data_version;
    if (version !== this.seenDataVersion || this.signal.read() !== this.seenSignal) this.reload();
  }

  private reload(): void {
    this.seenSignal = this.signal.read();
    this.seenDataVersion = this.dataVersion.get()!.data_version;
    this.lastPoll = this.now();
    this.index = keyIndexOf(this.rows.all().map(keyEntryOf));
  }
}
