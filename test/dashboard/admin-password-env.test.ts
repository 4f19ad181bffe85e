import { expect, test } from "bun:test";
import { loadConfig } from "../../src/app/config.ts";
import { UsageError } from "../../src/app/usage-error.ts";
import { AdminPassword } from "../../src/dashboard/admin-password.ts";
import { openDatabase } from "../../src/stores/sqlite/database.ts";
import { inMemoryChangeSignal } from "../../src/stores/sqlite/change-signal.ts";
import { sqliteStores } from "../../src/stores/sqlite/stores.ts";

test("RISKCHECK_ADMIN_PASSWORD follows admin set-password's rules: 12 to 1,024 characters", () => {
  expect(() => loadConfig({}, { RISKCHECK_ADMIN_PASSWORD: "a" })).toThrow(
    new UsageError("RISKCHECK_ADMIN_PASSWORD: the password needs at least 12 characters"),
  );
  expect(() => loadConfig({}, { RISKCHECK_ADMIN_PASSWORD: "x".repeat(1025) })).toThrow(
    new UsageError("RISKCHECK_ADMIN_PASSWORD: the password can have at most 1024 characters"),
  );
  expect(loadConfig({}, { RISKCHECK_ADMIN_PASSWORD: "x".repeat(1024) }).adminPassword).toHaveLength(1024);
});

test("a changed RISKCHECK_ADMIN_PASSWORD ends the sessions signed in under the old one; an unchanged one keeps them", async () => {
  const stores = sqliteStores(openDatabase(":memory:"), inMemoryChangeSignal(), ":memory:");
  try {
    const now = Date.now();
    const first = await AdminPassword.open(stores.adminPassword, "first password, long enough");
    const { token } = await stores.sessions.create(now);
    // A restart with the same value.
    const same = await AdminPassword.open(stores.adminPassword, "first password, long enough");
    expect(await same.verify("first password, long enough")).toBe(true);
    expect(await stores.sessions.find(token, now + 1)).not.toBeNull();
    // A restart with a new value.
    const changed = await AdminPassword.open(stores.adminPassword, "second password, long enough");
    expect(await stores.sessions.find(token, now + 1)).toBeNull();
    expect(await changed.verify("second password, long enough")).toBe(true);
    expect(await changed.verify("first password, long enough")).toBe(false);
    expect(await first.isSet()).toBe(true);
  } finally {
    await stores.close();
  }
});
