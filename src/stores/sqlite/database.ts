import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { lockedError } from "./lock-wait.ts";

/** Each entry moves the schema one version forward; never edit a shipped entry, append. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE api_keys (
     id                 TEXT PRIMARY KEY,
     name               TEXT NOT NULL,
     secret_hash        TEXT NOT NULL UNIQUE,
     prefix             TEXT NOT NULL,
     created_at         TEXT NOT NULL,
     last_used_at       TEXT,
     revoked_at         TEXT,
     rate_per_minute    INTEGER,
     ip_quota_per_month INTEGER
   );`,
  `CREATE TABLE usage_daily (
     key_id   TEXT NOT NULL REFERENCES api_keys(id),
     day      TEXT NOT NULL,
     endpoint TEXT NOT NULL,
     outcome  TEXT NOT NULL,
     count    INTEGER NOT NULL,
     PRIMARY KEY (key_id, day, endpoint, outcome)
   ) WITHOUT ROWID;`,
  `CREATE TABLE admin_password (
     id            INTEGER PRIMARY KEY CHECK (id = 1),
     password_hash TEXT NOT NULL,
     updated_at    TEXT NOT NULL
   );
   CREATE TABLE admin_sessions (
     token_hash TEXT PRIMARY KEY,
     csrf_token TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL
   ) WITHOUT ROWID;`,
  `CREATE TABLE sign_in_failures (
     client       TEXT PRIMARY KEY,
     failures     INTEGER NOT NULL,
     window_start INTEGER NOT NULL,
     locked_until INTEGER NOT NULL,
     lockouts     INTEGER NOT NULL,
     last_failure INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE INDEX sign_in_failures_last_failure ON sign_in_failures (last_failure);`,
  `CREATE TABLE email_overrides (
     domain     TEXT PRIMARY KEY,
     action     TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
     reason     TEXT NOT NULL,
     author     TEXT NOT NULL,
     created_at TEXT NOT NULL,
     until      TEXT
   ) WITHOUT ROWID;`,
  // Every key made before permissions keeps checking.
  `ALTER TABLE api_keys ADD COLUMN permissions TEXT NOT NULL DEFAULT 'check';`,
  // Local abuse reports; reported_at in ms. report_deletions counts deletions and prunes, so that readers know to reread.
  `CREATE TABLE reports (
     id          INTEGER PRIMARY KEY AUTOINCREMENT,
     key_id      TEXT NOT NULL REFERENCES api_keys(id),
     ip          TEXT NOT NULL,
     category    TEXT NOT NULL,
     comment     TEXT,
     reported_at INTEGER NOT NULL
   );
   CREATE INDEX reports_by_reporter ON reports (key_id, ip, category, reported_at);
   CREATE INDEX reports_by_ip ON reports (ip);
   CREATE INDEX reports_by_time ON reports (reported_at);
   CREATE TABLE report_deletions (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
   INSERT INTO report_deletions VALUES (1, 0);`,
  // `keys revoke NAME` looks keys up by name; PostgreSQL has had this index from its first version.
  `CREATE INDEX IF NOT EXISTS api_keys_name ON api_keys (name);`,
  // Keys that change, rotate, expire and are restricted to networks (every existing key: none of that, working as before),
  // and where each was last used from.
  `ALTER TABLE api_keys ADD COLUMN last_used_ip TEXT;
   ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
   ALTER TABLE api_keys ADD COLUMN allowed_networks TEXT;
   ALTER TABLE api_keys ADD COLUMN previous_secret_hash TEXT;
   ALTER TABLE api_keys ADD COLUMN previous_secret_ends_at TEXT;`,
  // Every deletion of reports, in commit order, for the instances to apply to their indexes one by one;
  // and a key's addresses of the day, for its daily limit. The deletion counter readers used to reread everything by goes.
  `CREATE TABLE report_deletion_log (
     id         INTEGER PRIMARY KEY AUTOINCREMENT,
     ip         TEXT,
     key_id     TEXT,
     before_ms  INTEGER,
     deleted_at INTEGER NOT NULL
   );
   CREATE INDEX reports_by_key_time ON reports (key_id, reported_at, ip);
   DROP TABLE report_deletions;`,
  // The operator's IP override lines; target as ipOverrideTarget writes it. Every change moves
  // ip_override_changes' generation (by trigger, so a hand edit counts too): instances poll that one row.
  `CREATE TABLE ip_overrides (
     target     TEXT PRIMARY KEY,
     action     TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
     reason     TEXT NOT NULL,
     author     TEXT NOT NULL,
     created_at TEXT NOT NULL,
     until      TEXT
   ) WITHOUT ROWID;
   CREATE TABLE ip_override_changes (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
   INSERT INTO ip_override_changes VALUES (1, 0);
   CREATE TRIGGER ip_overrides_inserted AFTER INSERT ON ip_overrides BEGIN UPDATE ip_override_changes SET generation = generation + 1; END;
   CREATE TRIGGER ip_overrides_updated AFTER UPDATE ON ip_overrides BEGIN UPDATE ip_override_changes SET generation = generation + 1; END;
   CREATE TRIGGER ip_overrides_deleted AFTER DELETE ON ip_overrides BEGIN UPDATE ip_override_changes SET generation = generation + 1; END;`,
  // The audit log: append-only (an UPDATE is refused; only retention deletes). \`once\` names an event several
  // processes may each see (an override's expiry): the second insert of one name is dropped.
  `CREATE TABLE audit_log (
     id      INTEGER PRIMARY KEY AUTOINCREMENT,
     at      TEXT NOT NULL,
     action  TEXT NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
     target  TEXT NOT NULL,
     actor   TEXT NOT NULL,
     channel TEXT NOT NULL CHECK (channel IN ('cli', 'dashboard', 'api', 'server')),
     change  TEXT,
     detail  TEXT,
     once    TEXT UNIQUE
   );
   CREATE INDEX audit_log_at ON audit_log (at);
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;`,
  // The operator's assessment rules, one JSON document ({"rules": [...]}) written whole over the revision it read;
  // and the assessments' decisions and what each rule decided or would have, per day and event.
  `CREATE TABLE policy (
     id         INTEGER PRIMARY KEY CHECK (id = 1),
     revision   INTEGER NOT NULL,
     rules      TEXT NOT NULL,
     updated_at TEXT
   );
   INSERT INTO policy VALUES (1, 0, '{"rules":[]}', NULL);
   CREATE TABLE policy_counts (
     day     TEXT NOT NULL,
     event   TEXT NOT NULL,
     rule    TEXT NOT NULL,
     outcome TEXT NOT NULL,
     count   INTEGER NOT NULL,
     PRIMARY KEY (day, event, rule, outcome)
   );`,
  // Override lines read a change at a time: every change to a line, by any process or by hand, moves the one
  // generation and logs the target under it (the last 10,000 of them; one that has fallen further behind reads
  // every line), so that an instance reads what changed since it last looked rather than every line. Lines count
  // by kind and by the API key that added them (key_id '' counts them all), for the limits. A page of lines by
  // action, in target order, is an index range.
  `ALTER TABLE email_overrides ADD COLUMN key_id TEXT;
   ALTER TABLE ip_overrides ADD COLUMN key_id TEXT;
   CREATE INDEX email_overrides_by_action ON email_overrides (action, domain);
   CREATE INDEX ip_overrides_by_action ON ip_overrides (action, target);
   DROP TRIGGER ip_overrides_inserted;
   DROP TRIGGER ip_overrides_updated;
   DROP TRIGGER ip_overrides_deleted;
   DROP TABLE ip_override_changes;
   CREATE TABLE override_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
   INSERT INTO override_generation VALUES (1, 0);
   CREATE TABLE override_changes (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL);
   CREATE TABLE override_counts (kind TEXT NOT NULL, key_id TEXT NOT NULL, lines INTEGER NOT NULL, PRIMARY KEY (kind, key_id)) WITHOUT ROWID;
   INSERT INTO override_counts SELECT 'email', '', count(*) FROM email_overrides;
   INSERT INTO override_counts SELECT 'ip', '', count(*) FROM ip_overrides;
   CREATE TRIGGER email_overrides_inserted AFTER INSERT ON email_overrides BEGIN
     UPDATE override_counts SET lines = lines + 1 WHERE kind = 'email' AND key_id IN ('', NEW.key_id);
     INSERT INTO override_counts SELECT 'email', NEW.key_id, 1
       WHERE NEW.key_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM override_counts WHERE kind = 'email' AND key_id = NEW.key_id);
     UPDATE override_generation SET generation = generation + 1;
     INSERT INTO override_changes SELECT generation, 'email', NEW.domain FROM override_generation;
     DELETE FROM override_changes WHERE seq <= (SELECT generation FROM override_generation) - 10000;
   END;
   CREATE TRIGGER email_overrides_updated AFTER UPDATE ON email_overrides BEGIN
     UPDATE override_counts SET lines = lines - 1 WHERE kind = 'email' AND key_id = OLD.key_id AND NEW.key_id IS NOT OLD.key_id;
     UPDATE override_counts SET lines = lines + 1 WHERE kind = 'email' AND key_id = NEW.key_id AND NEW.key_id IS NOT OLD.key_id;
     INSERT INTO override_counts SELECT 'email', NEW.key_id, 1 WHERE NEW.key_id IS NOT NULL AND NEW.key_id IS NOT OLD.key_id
       AND NOT EXISTS (SELECT 1 FROM override_counts WHERE kind = 'email' AND key_id = NEW.key_id);
     UPDATE override_generation SET generation = generation + 1;
     INSERT INTO override_changes SELECT generation, 'email', OLD.domain FROM override_generation;
     UPDATE override_generation SET generation = generation + 1 WHERE NEW.domain IS NOT OLD.domain;
     INSERT INTO override_changes SELECT generation, 'email', NEW.domain FROM override_generation WHERE NEW.domain IS NOT OLD.domain;
     DELETE FROM override_changes WHERE seq <= (SELECT generation FROM override_generation) - 10000;
   END;
   CREATE TRIGGER email_overrides_deleted AFTER DELETE ON email_overrides BEGIN
     UPDATE override_counts SET lines = lines - 1 WHERE kind = 'email' AND key_id IN ('', OLD.key_id);
     UPDATE override_generation SET generation = generation + 1;
     INSERT INTO override_changes SELECT generation, 'email', OLD.domain FROM override_generation;
     DELETE FROM override_changes WHERE seq <= (SELECT generation FROM override_generation) - 10000;
   END;
   CREATE TRIGGER ip_overrides_inserted AFTER INSERT ON ip_overrides BEGIN
     UPDATE override_counts SET lines = lines + 1 WHERE kind = 'ip' AND key_id IN ('', NEW.key_id);
     INSERT INTO override_counts SELECT 'ip', NEW.key_id, 1
       WHERE NEW.key_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM override_counts WHERE kind = 'ip' AND key_id = NEW.key_id);
     UPDATE override_generation SET generation = generation + 1;
     INSERT INTO override_changes SELECT generation, 'ip', NEW.target FROM override_generation;
     DELETE FROM override_changes WHERE seq <= (SELECT generation FROM override_generation) - 10000;
   END;
   CREATE TRIGGER ip_overrides_updated AFTER UPDATE ON ip_overrides BEGIN
     UPDATE override_counts SET lines = lines - 1 WHERE kind = 'ip' AND key_id = OLD.key_id AND NEW.key_id IS NOT OLD.key_id;
     UPDATE override_counts SET lines = lines + 1 WHERE kind = 'ip' AND key_id = NEW.key_id AND NEW.key_id IS NOT OLD.key_id;
     INSERT INTO override_counts SELECT 'ip', NEW.key_id, 1 WHERE NEW.key_id IS NOT NULL AND NEW.key_id IS NOT OLD.key_id
       AND NOT EXISTS (SELECT 1 FROM override_counts WHERE kind = 'ip' AND key_id = NEW.key_id);
     UPDATE override_generation SET generation = generation + 1;
     INSERT INTO override_changes SELECT generation, 'ip', OLD.target FROM override_generation;
     UPDATE override_generation SET generation = generation + 1 WHERE NEW.target IS NOT OLD.target;
     INSERT INTO override_changes SELECT generation, 'ip', NEW.target FROM override_generation WHERE NEW.target IS NOT OLD.target;
     DELETE FROM override_changes WHERE seq <= (SELECT generation FROM override_generation) - 10000;
   END;
   CREATE TRIGGER ip_overrides_deleted AFTER DELETE ON ip_overrides BEGIN
     UPDATE override_counts SET lines = lines - 1 WHERE kind = 'ip' AND key_id IN ('', OLD.key_id);
     UPDATE override_generation SET generation = generation + 1;
     INSERT INTO override_changes SELECT generation, 'ip', OLD.target FROM override_generation;
     DELETE FROM override_changes WHERE seq <= (SELECT generation FROM override_generation) - 10000;
   END;`,
  // Append-only, deletes included: only retention deletes events, those before the cutoff it notes first, in the same transaction.
  `CREATE TABLE audit_retention (id INTEGER PRIMARY KEY CHECK (id = 1), pruned_before TEXT NOT NULL);
   INSERT INTO audit_retention VALUES (1, '');
   CREATE TRIGGER audit_log_kept BEFORE DELETE ON audit_log WHEN OLD.at >= (SELECT pruned_before FROM audit_retention)
   BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: only its retention deletes events'); END;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Opening may wait this long for another process's write lock (nothing is being served yet). */
const MIGRATION_PATIENCE_MS = 5_000;

/**
 * Opens (creating if needed) the store shared by the server and the CLI. `waitForLocksMs`
 * is SQLite's busy timeout: the CLI may block while it waits; the server passes 0 and waits
 * in writeWhenUnlocked instead, off its event loop. `mustWrite` (the server) refuses a
 * database it could read but never write to, rather than losing every count it flushes.
 */
export function openDatabase(
  path: string,
  waitForLocksMs = 5_000,
  mustWrite = false,
  onMigrated: (from: number, to: number) => void = () => {},
): Database {
  let db: Database;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    db = new Database(path, { create: true, strict: true });
    db.exec(`PRAGMA busy_timeout = ${MIGRATION_PATIENCE_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
  } catch (err) {
    throw new Error(
      `${path}: cannot open the SQLite database (${(err as Error).message}); check the path and its permissions (--db / RISKCHECK_DB)`,
    );
  }
  try {
    const from = migrate(db, path);
    if (from < SCHEMA_VERSION) onMigrated(from, SCHEMA_VERSION);
    if (mustWrite) checkWritable(db, path);
  } catch (err) {
    db.close();
    throw (err as { code?: string }).code === "SQLITE_BUSY" ? lockedError(path) : err;
  }
  db.exec(`PRAGMA busy_timeout = ${waitForLocksMs}`);
  return db;
}

/** Brings the schema up to date; the version it was at (0: a new database). */
function migrate(db: Database, path: string): number {
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `${path}: database schema version ${current} is newer than this riskcheck (${SCHEMA_VERSION}); upgrade riskcheck`,
    );
  }
  if (current === SCHEMA_VERSION) return current;
  db.transaction(() => {
    for (let v = current; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  return current;
}

/** Throws when a write to the database would fail: a read-only file, directory or mount. */
function checkWritable(db: Database, path: string): void {
  try {
    db.exec("BEGIN IMMEDIATE");
    db.exec("CREATE TABLE riskcheck_write_check (x)");
  } catch (err) {
    if (!String((err as { code?: string }).code).startsWith("SQLITE_READONLY")) throw err;
    throw new Error(
      `${path}: the database is read-only (${(err as Error).message}); serve writes usage counts and sign-ins to ` +
        `it: make the file and its directory writable, or point --db / RISKCHECK_DB at a writable file`,
    );
  } finally {
    if (db.inTransaction) db.exec("ROLLBACK");
  }
}
