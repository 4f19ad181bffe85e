import { SqliteWrites } from "../../src/stores/sqlite/lock-wait.ts";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SCHEMA_VERSION, openDatabase } from "../../src/stores/sqlite/database.ts";
import { inMemoryChangeSignal, openChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { KeyAuthenticator } from "../../src/keys/key-authenticator.ts";
import { SqliteKeyIndex } from "../../src/stores/sqlite/key-index.ts";
import { SqliteKeyStore } from "../../src/stores/sqlite/key-store.ts";
import {
  digestOfStoredHash,
  displayPrefix,
  generateSecret,
  hashSecret,
  looksLikeSecret,
  secretDigest,
} from "../../src/keys/secret.ts";

function memoryStore() {
  const db = openDatabase(":memory:");
  const signal = inMemoryChangeSignal();
  return { db, signal, keys: new SqliteKeyStore(db, new SqliteWrites(db), signal) };
}

describe("secrets", () => {
  test("are rk_ plus 43 base64url characters and differ every time", () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(looksLikeSecret(a)).toBe(true);
  });
  test("are stored as a SHA-256 digest", () => {
    expect(hashSecret("rk_x")).toBe(new Bun.CryptoHasher("sha256").update("rk_x").digest("hex"));
  });
  test("show only a short prefix", () => {
    const s = generateSecret();
    expect(displayPrefix(s)).toBe(s.slice(0, 9));
  });
  test.each(["", "rk_", "Bearer", `rk_${"a".repeat(42)}`, `rk_${"a".repeat(44)}`, `xx_${"a".repeat(43)}`])(
    "%p does not look like a secret",
    (t) => {
      expect(looksLikeSecret(t)).toBe(false);
    },
  );
});

describe("key store in SQLite", () => {
  test("two active keys of one name from before names were unique keep working; by name they are refused with their ids, by id they change", async () => {
    const { db, keys, signal } = memoryStore();
    const first = await keys.create({ name: "prod" });
    const second = await keys.create({ name: "prod-2" });
    db.exec("UPDATE api_keys SET name = 'prod'"); // as an older version allowed
    const auth = new KeyAuthenticator(new SqliteKeyIndex(db, signal));
    expect([auth.authenticate(first.secret).outcome, auth.authenticate(second.secret).outcome]).toEqual([
      "active",
      "active",
    ]);
    for (const attempt of [
      () => keys.revoke("prod"),
      () => keys.update("prod", { ratePerMinute: 1 }),
      () => keys.rotate("prod", 0),
    ]) {
      await expect(attempt()).rejects.toThrow(
        /^2 active keys are named "prod" \(key_\S+, key_\S+\), made before names had to be unique; use the id$/,
      );
    }
    expect((await keys.update(second.key.id, { name: "prod-b" })).after.name).toBe("prod-b");
    expect((await keys.revoke("prod")).id).toBe(first.key.id);
  });

  test("never writes the secret to the database file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-store-"));
    const path = join(dir, "keys.sqlite");
    const db = openDatabase(path);
    const keys = new SqliteKeyStore(db, new SqliteWrites(db), openChangeSignal(`${path}-signal`));
    const { secret } = await keys.create({ name: "app" });
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    const raw = readFileSync(path).toString("latin1");
    expect(raw).toContain(hashSecret(secret));
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(secret.slice(9));
  });

  test("opens in WAL mode with a busy timeout", () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-store-"));
    const db = openDatabase(join(dir, "x.sqlite"));
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: SCHEMA_VERSION });
  });
});

describe("key authenticator over SQLite", () => {
  test("tells active, revoked and unknown keys apart", async () => {
    const { db, signal, keys } = memoryStore();
    const auth = new KeyAuthenticator(new SqliteKeyIndex(db, signal));
    const { key, secret } = await keys.create({ name: "a" });
    expect(auth.authenticate(secret)).toMatchObject({ outcome: "active", key: { id: key.id } });
    expect(auth.authenticate(generateSecret())).toEqual({ outcome: "unknown" });
    expect(auth.authenticate("not-a-key")).toEqual({ outcome: "unknown" });
    await keys.revoke(key.id);
    expect(auth.authenticate(secret)).toMatchObject({ outcome: "revoked" });
  });

  test("sees a revocation made through another connection on the next call a millisecond later", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-auth-"));
    const path = join(dir, "k.sqlite");
    const serverDb = openDatabase(path);
    const serverSignal = openChangeSignal(`${path}-signal`);
    const auth = new KeyAuthenticator(new SqliteKeyIndex(serverDb, serverSignal, () => 0));
    const cliDb = openDatabase(path);
    const cli = new SqliteKeyStore(cliDb, new SqliteWrites(cliDb), openChangeSignal(`${path}-signal`));
    const { key, secret } = await cli.create({ name: "b" });
    expect(auth.authenticate(secret).outcome).toBe("active");
    await cli.revoke(key.id);
    // The signal file is read at most once a millisecond; another process's revocation takes longer than that to arrive.
    await Bun.sleep(2);
    expect(auth.authenticate(secret).outcome).toBe("revoked");
  });

  test("picks up writers that do not bump the signal within a second", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-auth-"));
    const path = join(dir, "k.sqlite");
    const db = openDatabase(path);
    let now = 0;
    const signal = inMemoryChangeSignal();
    const auth = new KeyAuthenticator(new SqliteKeyIndex(db, signal, () => now));
    const other = openDatabase(path);
    const { key, secret } = await new SqliteKeyStore(other, new SqliteWrites(other), inMemoryChangeSignal()).create({
      name: "c",
    });
    expect(auth.authenticate(secret).outcome).toBe("active");
    other.query("UPDATE api_keys SET revoked_at = '2026-01-01T00:00:00Z' WHERE id = ?").run(key.id);
    now = 1_500;
    expect(auth.authenticate(secret).outcome).toBe("revoked");
  });
});

test("the authenticator's digest of a secret is the stored hash, re-encoded", () => {
  for (let i = 0; i < 50; i++) {
    const secret = generateSecret();
    expect(digestOfStoredHash(hashSecret(secret))).toBe(secretDigest(secret));
  }
  expect(secretDigest("rk_x")).not.toBe(secretDigest("rk_y"));
});
