import type { Database } from "bun:sqlite";
import { type IpOverrideLine, ipLineOfRow } from "../../ip/overrides/ip-override.ts";
import type { Writes } from "./lock-wait.ts";
import { SqliteLineStore } from "./override-lines.ts";

export class SqliteIpOverrideStore extends SqliteLineStore<IpOverrideLine> {
  constructor(db: Database, writes: Writes) {
    super(db, writes, {
      table: "ip_overrides",
      column: "target",
      kind: "ip",
      lineOf: ipLineOfRow,
      targetOf: (line) => line.target,
    });
  }
}
