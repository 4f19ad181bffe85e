import { resolve } from "node:path";

/**
 * What the tests' data directories and snapshots are made of, apart from test-app.ts so that a file
 * that only starts processes does not load the app (Elysia, the routes, the stores) with them.
 */

/** The data directory `npm install` fills: the bundled dataset version, the curated files. */
export const BUNDLED_DATA_DIR = resolve(import.meta.dir, "../../data");

/** The email lists of a test snapshot, and of a test data directory's operator allowlist. */
export const FIXTURE_EMAIL_LISTS = {
  disposable: ["mailinator.com", "tempmail.dev", "edu.pl", "пример.com"],
  disposableWildcard: ["33mail.com"],
  free: ["gmail.com", "yahoo.com", "mailinator.com"],
  freeSupplement: ["tuta.io"],
  allow: ["duck.com"],
};
