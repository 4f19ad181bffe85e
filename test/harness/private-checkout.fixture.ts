import { SQL } from "bun";
import { freshDatabaseUrl, stopTestPostgres } from "../support/postgres.ts";

// Run by private-checkout.test.ts from a copy inside a folder only its owner can enter: the
// test PostgreSQL server starts (as the user postgres when run as root), answers, and stops.
try {
  const sql = new SQL({ url: await freshDatabaseUrl(), adapter: "postgres", max: 1 });
  const [{ answer }] = await sql`SELECT 6 * 7 AS answer`;
  await sql.close({ timeout: 0 });
  console.log(`answer ${answer}`);
} finally {
  await stopTestPostgres();
}
