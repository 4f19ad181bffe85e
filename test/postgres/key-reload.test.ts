import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { KeyAuthenticator } from "../../src/keys/key-authenticator.ts";
import { openPostgres } from "../../src/stores/postgres/database.ts";
import { PostgresKeyIndex } from "../../src/stores/postgres/key-index.ts";
import { PostgresKeyStore } from "../../src/stores/postgres/key-store.ts";
import { freshDatabaseUrl } from "../support/postgres.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(30_000));

const url = await freshDatabaseUrl();
const [serving, cli] = [await openPostgres(url), await openPostgres(url)];
const opened: PostgresKeyIndex[] = [];
afterAll(async () => {
  await Promise.all(opened.map((index) => index.close()));
  await Promise.all([serving.close(), cli.close()]);
});

/** Polls until the key answers `outcome`, up to `quietMs` (scaled to this machine); the outcome seen last. */
async function waitFor(auth: KeyAuthenticator, secret: string, outcome: string, quietMs: number): Promise<string> {
  const until = Date.now() + scaled(quietMs);
  while (auth.authenticate(secret).outcome !== outcome && Date.now() < until) await Bun.sleep(20);
  return auth.authenticate(secret).outcome;
}

test("a reload that fails after a NOTIFY is retried until it succeeds: the revoked key stops working", async () => {
  const errors: string[] = [];
  const index = await PostgresKeyIndex.open(serving, (line) => errors.push(line));
  opened.push(index);
  const auth = new KeyAuthenticator(index);
  const { key, secret } = await new PostgresKeyStore(cli).create({ name: "revoked-during-trouble" });
  expect(await waitFor(auth, secret, "active", 5_000)).toBe("active");
  // The NOTIFY of the revocation arrives while the table cannot be read (as in a failover):
  // the reload it starts fails, and nothing announces the table's return.
  await cli.begin(async (tx) => {
    await tx`UPDATE api_keys SET revoked_at = ${new Date().toISOString()} WHERE id = ${key.id}`;
    await tx`ALTER TABLE api_keys RENAME TO api_keys_away`;
  });
  const until = Date.now() + scaled(5_000);
  while (errors.length === 0 && Date.now() < until) await Bun.sleep(10);
  expect(errors[0]).toContain("keys: reloading the keys failed");
  await cli`ALTER TABLE api_keys_away RENAME TO api_keys`;
  expect(await waitFor(auth, secret, "revoked", 3_000)).toBe("revoked");
});

test("the keys are reloaded periodically, so a change whose notification was lost still arrives", async () => {
  const index = await PostgresKeyIndex.open(serving, () => {}, 300);
  opened.push(index);
  const auth = new KeyAuthenticator(index);
  const { key, secret } = await new PostgresKeyStore(cli).create({ name: "notification-lost" });
  expect(await waitFor(auth, secret, "active", 5_000)).toBe("active");
  // A change that sends no notification: the trigger disabled, as a restore with triggers off would.
  await cli.begin(async (tx) => {
    await tx`ALTER TABLE api_keys DISABLE TRIGGER api_keys_changed`;
    await tx`UPDATE api_keys SET revoked_at = ${new Date().toISOString()} WHERE id = ${key.id}`;
    await tx`ALTER TABLE api_keys ENABLE TRIGGER api_keys_changed`;
  });
  expect(await waitFor(auth, secret, "revoked", 3_000)).toBe("revoked");
});
