import type { Database } from "bun:sqlite";
import {
  type IpOverrideLine,
  type IpOverrideRow,
  type IpOverrideStore,
  ipLineOfRow,
} from "../../ip/overrides/ip-override.ts";
import { writeWhenUnlocked } from "./lock-wait.ts";

export class SqliteIpOverrideStore implements IpOverrideStore {
  constructor(private readonly db: Database) {}

  async list(): Promise<IpOverrideLine[]> {
    return this.db
      .query<IpOverrideRow, []>(
        "SELECT target, action, reason, author, created_at, until FROM ip_overrides ORDER BY target",
      )
      .all()
      .map(ipLineOfRow);
  }

  async put(line: IpOverrideLine): Promise<void> {
    const insert = this.db.query(
      `INSERT INTO ip_overrides (target, action, reason, author, created_at, until) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (target) DO UPDATE SET action = excluded.action, reason = excluded.reason, author =
         excluded.author, created_at = excluded.created_at, until = excluded.until`,
    );
    await writeWhenUnlocked(this.db, () =>
      insert.run(line.target, line.action, line.reason, line.author, line.created, line.until),
    );
  }

  async remove(target: string): Promise<boolean> {
    const remove = this.db.query("DELETE FROM ip_overrides WHERE target = ?");
    return (await writeWhenUnlocked(this.db, () => remove.run(target))).changes > 0;
  }

  async generation(): Promise<number> {
    return this.db.query<{ generation: number }, []>("SELECT generation FROM ip_override_changes").get()!.generation;
  }
}
