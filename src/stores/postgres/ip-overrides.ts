import type { SQL } from "bun";
import { type IpOverrideLine, ipLineOfRow } from "../../ip/overrides/ip-override.ts";
import { PostgresLineStore } from "./override-lines.ts";

export class PostgresIpOverrideStore extends PostgresLineStore<IpOverrideLine> {
  constructor(sql: SQL) {
    super(sql, {
      table: "ip_overrides",
      column: "target",
      kind: "ip",
      lineOf: ipLineOfRow,
      targetOf: (line) => line.target,
    });
  }
}
