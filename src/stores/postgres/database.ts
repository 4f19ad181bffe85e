import type { SQL } from "bun";
import { redactedDatabaseUrl, withoutPassword } from "./connection-url.ts";

/** The channel every change to api_keys is announced on (by a trigger, so hand-made changes count too). */
export const KEYS_CHANGED_CHANNEL = "riskcheck_keys_changed";

/**
 * Each entry moves the schema one version forward; never edit a shipped entry, append.
 * Times are ISO 8601 text as in SQLite, so both stores order and compare them alike.
 */
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
   );
   CREATE INDEX api_keys_name ON api_keys (name);
   CREATE TABLE usage_daily (
     key_id   TEXT NOT NULL REFERENCES api_keys(id),
     day      TEXT NOT NULL,
     endpoint TEXT NOT NULL,
     outcome  TEXT NOT NULL,
     count    BIGINT NOT NULL,
     PRIMARY KEY (key_id, day, endpoint, outcome)
   );
   CREATE TABLE admin_password (
     id            INTEGER PRIMARY KEY CHECK (id = 1),
     password_hash TEXT NOT NULL,
     updated_at    TEXT NOT NULL
   );
   CREATE TABLE admin_sessions (
     token_hash TEXT PRIMARY KEY,
     csrf_token TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL
   );
   CREATE TABLE sign_in_failures (
     client       TEXT PRIMARY KEY,
     failures     INTEGER NOT NULL,
     window_start BIGINT NOT NULL,
     locked_until BIGINT NOT NULL,
     lockouts     INTEGER NOT NULL,
     last_failure BIGINT NOT NULL
   );
   CREATE INDEX sign_in_failures_last_failure ON sign_in_failures (last_failure);
   -- Successful IP checks handed out to instances per key and month: used, or leased and not yet used.
   CREATE TABLE quota_leases (
     key_id  TEXT NOT NULL REFERENCES api_keys(id),
     month   TEXT NOT NULL,
     charged BIGINT NOT NULL,
     PRIMARY KEY (key_id, month)
   );
   CREATE FUNCTION riskcheck_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${KEYS_CHANGED_CHANNEL}', '');
     RETURN NULL;
   END $$;
   -- last_used_at is left out: the usage flush writes it every few seconds and no instance needs it.
   CREATE TRIGGER api_keys_changed
     AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, name, secret_hash, revoked_at, rate_per_minute, ip_quota_per_month ON api_keys
     FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_keys_changed();`,
  `CREATE TABLE email_overrides (
     domain     TEXT PRIMARY KEY,
     action     TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
     reason     TEXT NOT NULL,
     author     TEXT NOT NULL,
     created_at TEXT NOT NULL,
     until      TEXT
   );`,
  // Every key made before permissions keeps checking; a change of permissions reaches the instances as any key change.
  `ALTER TABLE api_keys ADD COLUMN permissions TEXT NOT NULL DEFAULT 'check';
   DROP TRIGGER api_keys_changed ON api_keys;
   CREATE TRIGGER api_keys_changed
     AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, name, secret_hash, revoked_at, rate_per_minute, ip_quota_per_month, permissions ON api_keys
     FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_keys_changed();`,
  // Local abuse reports; reported_at in ms. Instances follow new rows by the writing transaction's id (xid),
  // and reread everything when report_deletions' count moved.
  `CREATE TABLE reports (
     id          BIGSERIAL PRIMARY KEY,
     key_id      TEXT NOT NULL REFERENCES api_keys(id),
     ip          TEXT NOT NULL,
     category    TEXT NOT NULL,
     comment     TEXT,
     reported_at BIGINT NOT NULL,
     xid         xid8 NOT NULL DEFAULT pg_current_xact_id()
   );
   CREATE INDEX reports_by_reporter ON reports (key_id, ip, category, reported_at);
   CREATE INDEX reports_by_ip ON reports (ip);
   CREATE INDEX reports_by_time ON reports (reported_at);
   CREATE INDEX reports_by_xid ON reports (xid);
   CREATE TABLE report_deletions (id INTEGER PRIMARY KEY CHECK (id = 1), generation BIGINT NOT NULL);
   INSERT INTO report_deletions VALUES (1, 0);`,
  // Keys that change, rotate, expire and are restricted to networks (every existing key: none of that, working as before),
  // and where each was last used from; like last_used_at, last_used_ip changes announce nothing.
  `ALTER TABLE api_keys ADD COLUMN last_used_ip TEXT;
   ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
   ALTER TABLE api_keys ADD COLUMN allowed_networks TEXT;
   ALTER TABLE api_keys ADD COLUMN previous_secret_hash TEXT;
   ALTER TABLE api_keys ADD COLUMN previous_secret_ends_at TEXT;
   DROP TRIGGER api_keys_changed ON api_keys;
   CREATE TRIGGER api_keys_changed
     AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF id, name, secret_hash, revoked_at, rate_per_minute, ip_quota_per_month, permissions,
       expires_at, allowed_networks, previous_secret_hash, previous_secret_ends_at ON api_keys
     FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_keys_changed();`,
  // Every deletion of reports, in commit order (deletions take one lock, so ids commit in order),
  // for the instances to apply to their indexes one by one; and a key's addresses of the day, for its daily limit.
  // The deletion counter readers used to reread everything by goes.
  `CREATE TABLE report_deletion_log (
     id         BIGSERIAL PRIMARY KEY,
     ip         TEXT,
     key_id     TEXT,
     before_ms  BIGINT,
     deleted_at BIGINT NOT NULL
   );
   CREATE INDEX reports_by_key_time ON reports (key_id, reported_at, ip);
   DROP TABLE report_deletions;`,
  // The operator's IP override lines; target as ipOverrideTarget writes it. Every statement that changes them
  // moves ip_override_changes' generation (by trigger, so a hand edit counts too): instances poll that one row.
  `CREATE TABLE ip_overrides (
     target     TEXT PRIMARY KEY,
     action     TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
     reason     TEXT NOT NULL,
     author     TEXT NOT NULL,
     created_at TEXT NOT NULL,
     until      TEXT
   );
   CREATE TABLE ip_override_changes (id INTEGER PRIMARY KEY CHECK (id = 1), generation BIGINT NOT NULL);
   INSERT INTO ip_override_changes VALUES (1, 0);
   CREATE FUNCTION riskcheck_ip_overrides_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE ip_override_changes SET generation = generation + 1;
     RETURN NULL;
   END $$;
   CREATE TRIGGER ip_overrides_changed
     AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ip_overrides
     FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_ip_overrides_changed();`,
  // The audit log, as SQLite's: append-only, \`once\` for an event several instances may each see.
  `CREATE TABLE audit_log (
     id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
   CREATE FUNCTION riskcheck_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'the audit log is append-only';
   END $$;
   CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
     FOR EACH ROW EXECUTE FUNCTION riskcheck_audit_log_append_only();`,
  // The operator's assessment rules and the assessments' daily counts, as SQLite's.
  `CREATE TABLE policy (
     id         INTEGER PRIMARY KEY CHECK (id = 1),
     revision   BIGINT NOT NULL,
     rules      TEXT NOT NULL,
     updated_at TEXT
   );
   INSERT INTO policy VALUES (1, 0, '{"rules":[]}', NULL);
   CREATE TABLE policy_counts (
     day     TEXT NOT NULL,
     event   TEXT NOT NULL,
     rule    TEXT NOT NULL,
     outcome TEXT NOT NULL,
     count   BIGINT NOT NULL,
     PRIMARY KEY (day, event, rule, outcome)
   );`,
  // As SQLite's: every change to an override line moves the one generation and logs its target under it (the last
  // 10,000), so that instances read what changed; lines count by kind and by the API key that added them ('' : all).
  // Pages of lines go in byte order, as SQLite's: the indexes are in the "C" collation whatever the database's.
  // The generation's row lock, held to the commit, hands out generations in commit order. Counts are locked before
  // the generation, by the triggers as by an act that reads them first, so that two acts never wait on each other.
  `ALTER TABLE email_overrides ADD COLUMN key_id TEXT;
   ALTER TABLE ip_overrides ADD COLUMN key_id TEXT;
   CREATE INDEX email_overrides_in_order ON email_overrides (domain COLLATE "C");
   CREATE INDEX ip_overrides_in_order ON ip_overrides (target COLLATE "C");
   CREATE INDEX email_overrides_by_action ON email_overrides (action, domain COLLATE "C");
   CREATE INDEX ip_overrides_by_action ON ip_overrides (action, target COLLATE "C");
   DROP TRIGGER ip_overrides_changed ON ip_overrides;
   DROP FUNCTION riskcheck_ip_overrides_changed();
   DROP TABLE ip_override_changes;
   CREATE TABLE override_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation BIGINT NOT NULL);
   INSERT INTO override_generation VALUES (1, 0);
   CREATE TABLE override_changes (seq BIGINT PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL);
   CREATE TABLE override_counts (kind TEXT NOT NULL, key_id TEXT NOT NULL, lines BIGINT NOT NULL, PRIMARY KEY (kind, key_id));
   INSERT INTO override_counts SELECT 'email', '', count(*) FROM email_overrides;
   INSERT INTO override_counts SELECT 'ip', '', count(*) FROM ip_overrides;
   CREATE FUNCTION riskcheck_override_logged(line_kind text, line_target text) RETURNS void LANGUAGE plpgsql AS $$
   DECLARE
     g bigint;
   BEGIN
     UPDATE override_generation SET generation = generation + 1 RETURNING generation INTO g;
     INSERT INTO override_changes VALUES (g, line_kind, line_target);
     DELETE FROM override_changes WHERE seq <= g - 10000;
   END $$;
   CREATE FUNCTION riskcheck_override_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     line_kind text := TG_ARGV[0];
     old_target text;
     new_target text;
   BEGIN
     IF TG_OP = 'INSERT' THEN
       new_target := to_jsonb(NEW) ->> TG_ARGV[1];
       UPDATE override_counts SET lines = lines + 1 WHERE kind = line_kind AND key_id = '';
       IF NEW.key_id IS NOT NULL THEN
         INSERT INTO override_counts VALUES (line_kind, NEW.key_id, 1)
           ON CONFLICT (kind, key_id) DO UPDATE SET lines = override_counts.lines + 1;
       END IF;
       PERFORM riskcheck_override_logged(line_kind, new_target);
     ELSIF TG_OP = 'DELETE' THEN
       old_target := to_jsonb(OLD) ->> TG_ARGV[1];
       UPDATE override_counts SET lines = lines - 1 WHERE kind = line_kind AND key_id IN ('', OLD.key_id);
       PERFORM riskcheck_override_logged(line_kind, old_target);
     ELSE
       old_target := to_jsonb(OLD) ->> TG_ARGV[1];
       new_target := to_jsonb(NEW) ->> TG_ARGV[1];
       IF NEW.key_id IS DISTINCT FROM OLD.key_id THEN
         UPDATE override_counts SET lines = lines - 1 WHERE kind = line_kind AND key_id = OLD.key_id;
         IF NEW.key_id IS NOT NULL THEN
           INSERT INTO override_counts VALUES (line_kind, NEW.key_id, 1)
             ON CONFLICT (kind, key_id) DO UPDATE SET lines = override_counts.lines + 1;
         END IF;
       END IF;
       PERFORM riskcheck_override_logged(line_kind, old_target);
       IF new_target IS DISTINCT FROM old_target THEN
         PERFORM riskcheck_override_logged(line_kind, new_target);
       END IF;
     END IF;
     RETURN NULL;
   END $$;
   -- A TRUNCATE empties the log: every instance then reads all lines again.
   CREATE FUNCTION riskcheck_overrides_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     UPDATE override_counts SET lines = 0 WHERE kind = TG_ARGV[0];
     UPDATE override_generation SET generation = generation + 1;
     DELETE FROM override_changes;
     RETURN NULL;
   END $$;
   CREATE TRIGGER email_overrides_changed AFTER INSERT OR UPDATE OR DELETE ON email_overrides
     FOR EACH ROW EXECUTE FUNCTION riskcheck_override_changed('email', 'domain');
   CREATE TRIGGER email_overrides_truncated AFTER TRUNCATE ON email_overrides
     FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_overrides_truncated('email');
   CREATE TRIGGER ip_overrides_changed AFTER INSERT OR UPDATE OR DELETE ON ip_overrides
     FOR EACH ROW EXECUTE FUNCTION riskcheck_override_changed('ip', 'target');
   CREATE TRIGGER ip_overrides_truncated AFTER TRUNCATE ON ip_overrides
     FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_overrides_truncated('ip');`,
  // As SQLite's: only retention deletes events, those before the cutoff it notes first in the same transaction; no TRUNCATE.
  `CREATE TABLE audit_retention (id INTEGER PRIMARY KEY CHECK (id = 1), pruned_before TEXT NOT NULL);
   INSERT INTO audit_retention VALUES (1, '');
   CREATE FUNCTION riskcheck_audit_log_kept() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'TRUNCATE' OR OLD.at >= (SELECT pruned_before FROM audit_retention) THEN
       RAISE EXCEPTION 'the audit log is append-only: only its retention deletes events';
     END IF;
     RETURN OLD;
   END $$;
   CREATE TRIGGER audit_log_kept BEFORE DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION riskcheck_audit_log_kept();
   CREATE TRIGGER audit_log_not_truncated BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION riskcheck_audit_log_kept();`,
];

export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** Any number: instances that start together take turns at migrating. */
const MIGRATION_LOCK = 0x7269736b;

/** Connects to the database shared by the instances and the CLI, and brings its schema up to date. */
export async function openPostgres(
  url: string,
  onMigrated: (from: number, to: number) => void = () => {},
): Promise<SQL> {
  // Bun.SQL read here, not imported: the bundle would read it at its top, and loading it costs a start ~5 ms of CPU.
  const sql = new Bun.SQL({ url, adapter: "postgres", max: 5, connectionTimeout: 10 });
  try {
    const from = await migrate(sql, url);
    if (from < POSTGRES_SCHEMA_VERSION) onMigrated(from, POSTGRES_SCHEMA_VERSION);
  } catch (err) {
    await sql.close();
    throw err;
  }
  return sql;
}

/** Brings the schema up to date (instances starting together take turns); the version it was at (0: a new database). */
async function migrate(sql: SQL, url: string): Promise<number> {
  const where = redactedDatabaseUrl(url);
  let newer: number | null = null;
  let from = POSTGRES_SCHEMA_VERSION;
  try {
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      await tx`CREATE TABLE IF NOT EXISTS riskcheck_schema (version INTEGER NOT NULL)`;
      const [row] = await tx<{ version: number }[]>`SELECT version FROM riskcheck_schema`;
      const current = row?.version ?? 0;
      from = current;
      if (current > POSTGRES_SCHEMA_VERSION) {
        newer = current;
        return;
      }
      for (let v = current; v < POSTGRES_SCHEMA_VERSION; v++) await tx.unsafe(MIGRATIONS[v]);
      if (row === undefined) await tx`INSERT INTO riskcheck_schema (version) VALUES (${POSTGRES_SCHEMA_VERSION})`;
      else if (current < POSTGRES_SCHEMA_VERSION)
        await tx`UPDATE riskcheck_schema SET version = ${POSTGRES_SCHEMA_VERSION}`;
    });
  } catch (err) {
    throw new Error(
      `${where}: cannot use the PostgreSQL database (${withoutPassword((err as Error).message, url)}); check ` +
        `--database-url / RISKCHECK_DATABASE_URL, that the server runs and that its user may create tables`,
    );
  }
  if (newer !== null)
    throw new Error(
      `${where}: database schema version ${newer} is newer than this riskcheck (${POSTGRES_SCHEMA_VERSION}); upgrade riskcheck`,
    );
  return from;
}
