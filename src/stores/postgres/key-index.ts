import type { SQL } from "bun";
import { type KeyIndex, type KeyIndexSource, keyIndexOf } from "../../keys/key-authenticator.ts";
import { KEY_COLUMNS, type KeyRow, keyEntryOf } from "../key-row.ts";
import { KEYS_CHANGED_CHANNEL } from "./database.ts";

/** A reload that failed is tried again after this, doubling up to RETRY_MAX_MS, until one succeeds. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;
/** Reloaded this often whatever was announced: the safety net for a notification lost on the way. */
export const SAFETY_RELOAD_MS = 30_000;

/**
 * The keys of a PostgreSQL database, reloaded whenever the database announces a change
 * (NOTIFY, sent by a trigger on api_keys) and whenever the listening connection comes
 * back after a drop, so a revocation made through any instance or the CLI reaches every
 * instance within milliseconds. A reload that fails (a failover, too many clients, a
 * cancelled statement) is retried with backoff until it succeeds, and the keys are
 * reloaded every SAFETY_RELOAD_MS regardless. Requests read the last loaded index and never wait.
 */
export class PostgresKeyIndex implements KeyIndexSource {
  private index: KeyIndex = new Map();
  private loading = false;
  private changedWhileLoading = false;
  private closed = false;
  private subscription: SQL.ListenSubscription | null = null;
  private safetyNet: Timer | null = null;
  private retry: { timer: Timer; wake: () => void } | null = null;

  private constructor(
    private readonly sql: SQL,
    private readonly logError: (line: string) => void,
  ) {}

  static async open(
    sql: SQL,
    logError: (line: string) => void,
    safetyReloadMs = SAFETY_RELOAD_MS,
  ): Promise<PostgresKeyIndex> {
    const keys = new PostgresKeyIndex(sql, logError);
    // Listening first: a change between the first load and the LISTEN would be missed otherwise.
    keys.subscription = await sql.listen(
      KEYS_CHANGED_CHANNEL,
      () => keys.changed(),
      () => keys.changed(),
    );
    await keys.load();
    keys.safetyNet = setInterval(() => keys.changed(), safetyReloadMs);
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
      let pause = RETRY_FIRST_MS;
      do {
        this.changedWhileLoading = false;
        try {
          await this.load();
        } catch (err) {
          this.logError(
            `keys: reloading the keys failed, serving the ones loaded before; trying again in ${pause} ms: ${(err as Error).message}`,
          );
          this.changedWhileLoading = true;
          await this.pause(pause);
          pause = Math.min(pause * 2, RETRY_MAX_MS);
        }
      } while (this.changedWhileLoading && !this.closed);
      this.loading = false;
    })();
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((wake) => {
      this.retry = { timer: setTimeout(wake, ms), wake: () => wake() };
    }).finally(() => (this.retry = null));
  }

  private async load(): Promise<void> {
    const rows = await this.sql<KeyRow[]>`SELECT ${this.sql.unsafe(KEY_COLUMNS)} FROM api_keys`;
    this.index = keyIndexOf(rows.map(keyEntryOf));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.safetyNet) clearInterval(this.safetyNet);
    if (this.retry) {
      clearTimeout(this.retry.timer);
      this.retry.wake();
    }
    await this.subscription?.unlisten();
  }
}
