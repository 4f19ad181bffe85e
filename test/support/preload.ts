import { afterAll } from "bun:test";
import { stopTestPostgres } from "./postgres.ts";
import { removeRunTempFolder, startRunTempFolder } from "./run-temp-folder.ts";

// Preloaded (bunfig.toml): runs before the first test file; the hook runs once after the last.
const temp = startRunTempFolder();

afterAll(async () => {
  try {
    await stopTestPostgres();
  } finally {
    removeRunTempFolder(temp);
  }
}, 30_000);
