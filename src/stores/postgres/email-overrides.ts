import type { SQL } from "bun";
import { type OverrideLine, lineOfRow } from "../../email/overrides.ts";
import { PostgresLineStore } from "./override-lines.ts";

export class PostgresOverrideStore extends PostgresLineStore<OverrideLine> {
  constructor(sql: SQL) {
    super(sql, {
      table: "email_overrides",
      column: "domain",
      kind: "email",
      lineOf: lineOfRow,
      targetOf: (line) => line.domain,
    });
  }
}
