import { afterAll } from "bun:test";
import { stopTestPostgres } from "./postgres.ts";

// Preloaded (bunfig.toml): runs once after the last test file.
afterAll(stopTestPostgres);
