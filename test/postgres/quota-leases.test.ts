import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SQL } from "bun";
import { openPostgres } from "../../src/postgres/database.ts";
import { PostgresKeyStore } from "../../src/postgres/key-store.ts";
import { PostgresQuotaLeases } from "../../src/postgres/quota-leases.ts";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl } from "../support/postgres.ts";

let pools: SQL[] = [];
let one: PostgresQuotaLeases;
let two: PostgresQuotaLeases;
beforeAll(async () => {
  const url = await freshDatabaseUrl();
  pools = [await openPostgres(url), await openPostgres(url)];
  [one, two] = pools.map((sql) => new PostgresQuotaLeases(sql));
}, POSTGRES_SETUP_TIMEOUT_MS);
afterAll(() => Promise.all(pools.map((sql) => sql.close({ timeout: 5 }))));

test("leases asked for at once by two instances never hand out more than the limit", async () => {
  const { key } = await new PostgresKeyStore(pools[0]).create({ name: "contended" });
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).lease({ keyId: key.id, month: "2026-11", want: 7, owed: 0, limit: 100 })));
  expect(answers.reduce((n, a) => n + a.granted, 0)).toBe(100);
  expect(answers.filter((a) => a.granted > 0 && a.granted < 7)).toHaveLength(1);
  expect(Math.max(...answers.map((a) => a.charged))).toBe(100);
  expect((await one.chargedIn("2026-11")).get(key.id)).toBe(100);
});

test("credit served is charged even past the limit; unused checks go back; months are counted apart", async () => {
  const { key } = await new PostgresKeyStore(pools[0]).create({ name: "credit" });
  expect(await one.lease({ keyId: key.id, month: "2026-11", want: 50, owed: 0, limit: 100 })).toEqual({ granted: 50, charged: 50 });
  expect(await two.lease({ keyId: key.id, month: "2026-11", want: 50, owed: 60, limit: 100 })).toEqual({ granted: 0, charged: 110 });
  await one.giveBack([{ keyId: key.id, month: "2026-11", count: 30 }]);
  await two.giveBack([{ keyId: key.id, month: "2026-12", count: -4 }]);
  expect((await two.chargedIn("2026-11")).get(key.id)).toBe(80);
  expect((await two.chargedIn("2026-12")).get(key.id)).toBe(4);
  expect(await one.lease({ keyId: key.id, month: "2026-11", want: 50, owed: 0, limit: 100 })).toEqual({ granted: 20, charged: 100 });
});
