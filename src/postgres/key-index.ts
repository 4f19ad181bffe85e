import type { SQL } from "bun";
import { type KeyIndex, type KeyIndexSource, keyIndexOf } from "../keys/key-authenticator.ts";
import { KEY_COLUMNS, type KeyRow, toRecord } from "../keys/key-store.ts";
import { KEYS_CHANGED_CHANNEL } from "./database.ts";

/**
 * The keys of a PostgreSQL database, reloaded whenever the database announces a change
 * (NOTIFY, sent by a trigger on api_keys) and whenever the listening connection comes
 * back after a drop, so a revocation made through any instance or the CLI reaches every
 * instance within milliseconds. Requests read the last loaded index and never wait.
 */
export class PostgresKeyIndex implements KeyIndexSource {
  private index: KeyIndex = new Map();
  private loading = false;
  private changedWhileLoading = false;
  private subscription: SQL.ListenSubscription | null = null;

  private constructor(
    private readonly sql: SQL,
    private readonly logError: (line: string) => void,
  ) {}

  static async open(sql: SQL, logError: (line: string) => void): Promise<PostgresKeyIndex> {
    const keys = new PostgresKeyIndex(sql, logError);
    // Listening first: a change between the first load and the LISTEN would be missed otherwise.
    keys.subscription = await sql.listen(KEYS_CHANGED_CHANNEL, () => keys.changed(), () => keys.changed());
    await keys.load();
    return keys;
  }

  current(): KeyIndex {
    return this.index;
  }

  /** Nothing quicker than the notification: a key created a moment ago is known once it arrives. */
  afterMiss(): KeyIndex {
    return this.index;
  }

  /** Reloads; changes announced during a load bring one more load. */
  private changed(): void {
    if (this.loading) {
      this.changedWhileLoading = true;
      return;
    }
    this.loading = true;
    void (async () => {
      do {
        this.changedWhileLoading = false;
        try {
          await this.load();
        } catch (err) {
          this.logError(`keys: reloading the keys failed, serving the ones loaded before: ${(err as Error).message}`);
        }
      } while (this.changedWhileLoading);
      this.loading = false;
    })();
  }

  private async load(): Promise<void> {
    const rows = await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys`;
    this.index = keyIndexOf(rows.map((row) => [row.secret_hash, toRecord(row)] as const));
  }

  async close(): Promise<void> {
    await this.subscription?.unlisten();
  }
}
