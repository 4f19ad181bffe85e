import type { SQL } from "bun";
import {
  type IpOverrideLine,
  type IpOverrideRow,
  type IpOverrideStore,
  ipLineOfRow,
} from "../../ip/overrides/ip-override.ts";

export class PostgresIpOverrideStore implements IpOverrideStore {
  constructor(private readonly sql: SQL) {}

  async list(): Promise<IpOverrideLine[]> {
    const rows = await this.sql<
      IpOverrideRow[]
    >`SELECT target, action, reason, author, created_at, until FROM ip_overrides ORDER BY target`;
    return rows.map(ipLineOfRow);
  }

  async put(line: IpOverrideLine): Promise<void> {
    await this.sql`INSERT INTO ip_overrides (target, action, reason, author, created_at, until)
                   VALUES (${line.target}, ${line.action}, ${line.reason}, ${line.author}, ${line.created}, ${line.until})
                   ON CONFLICT (target) DO UPDATE SET action = excluded.action, reason = excluded.reason, author =
                     excluded.author, created_at = excluded.created_at, until = excluded.until`;
  }

  async remove(target: string): Promise<boolean> {
    const rows = await this.sql`DELETE FROM ip_overrides WHERE target = ${target} RETURNING target`;
    return rows.length > 0;
  }

  async generation(): Promise<number> {
    const [row] = await this.sql<{ generation: string }[]>`SELECT generation FROM ip_override_changes`;
    return Number(row.generation);
  }
}
