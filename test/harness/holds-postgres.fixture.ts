import { beforeAll, test } from "bun:test";
import { writeSync } from "node:fs";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl, startTestPostgres } from "../support/postgres.ts";

// Run by bounded-runs.test.ts only (its name is not a test file's): a run that has a PostgreSQL
// server and a database, then keeps its JavaScript thread busy for good, as a stuck test would.
beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

test("holds the test database with a busy thread", async () => {
  await freshDatabaseUrl();
  // Written at once: the loop below lets no buffered output out.
  writeSync(1, "holding the test database\n");
  for (;;);
});
