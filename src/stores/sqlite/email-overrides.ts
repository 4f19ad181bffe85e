import type { Database } from "bun:sqlite";
import { type OverrideLine, lineOfRow } from "../../email/overrides.ts";
import type { Writes } from "./lock-wait.ts";
import { SqliteLineStore } from "./override-lines.ts";

export class SqliteOverrideStore extends SqliteLineStore<OverrideLine> {
  constructor(db: Database, writes: Writes) {
    super(db, writes, {
      table: "email_overrides",
      column: "domain",
      kind: "email",
      lineOf: lineOfRow,
      targetOf: (line) => line.domain,
    });
  }
}
