import type { Database } from "bun:sqlite";
import { storedRules } from "../../assess/policy-edits.ts";
import type { PolicyRule } from "../../assess/policy-rule.ts";
import { type PolicyCount, type PolicyStore, type StoredPolicy, rulesJson } from "../../assess/policy-store.ts";
import type { Writes } from "./lock-wait.ts";

/** The operator's rules, one JSON document in one row, and the assessments' daily counts, in SQLite. */
export class SqlitePolicyStore implements PolicyStore {
  constructor(
    private readonly db: Database,
    private readonly writes: Writes,
    private readonly now: () => number = Date.now,
  ) {}

  async read(): Promise<StoredPolicy> {
    const row = this.db.query<{ revision: number; rules: string }, []>("SELECT revision, rules FROM policy").get()!;
    return storedRules(row.rules, row.revision, this.now());
  }

  async replace(rules: readonly PolicyRule[], revision: number): Promise<boolean> {
    const update = this.db.query(
      "UPDATE policy SET rules = ?, revision = revision + 1, updated_at = ? WHERE id = 1 AND revision = ?",
    );
    const at = new Date(this.now()).toISOString();
    return (await this.writes.run(() => update.run(rulesJson(rules), at, revision))).changes > 0;
  }

  async revision(): Promise<number> {
    return this.db.query<{ revision: number }, []>("SELECT revision FROM policy").get()!.revision;
  }

  async addCounts(rows: readonly PolicyCount[]): Promise<void> {
    if (rows.length === 0) return;
    const add = this.db.query(
      `INSERT INTO policy_counts (day, event, rule, outcome, count) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (day, event, rule, outcome) DO UPDATE SET count = count + excluded.count`,
    );
    const write = this.db.transaction(() => {
      for (const r of rows) add.run(r.day, r.event, r.rule, r.outcome, r.count);
    });
    await this.writes.run(() => write.immediate());
  }

  async countsSince(day: string): Promise<PolicyCount[]> {
    return this.db
      .query<PolicyCount, [string]>(
        "SELECT day, event, rule, outcome, count FROM policy_counts WHERE day >= ? ORDER BY day, event, rule, outcome",
      )
      .all(day);
  }
}
