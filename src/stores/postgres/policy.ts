import type { SQL } from "bun";
import { storedRules } from "../../assess/policy-edits.ts";
import type { PolicyRule } from "../../assess/policy-rule.ts";
import { type PolicyCount, type PolicyStore, type StoredPolicy, rulesJson } from "../../assess/policy-store.ts";

/** The operator's rules and the assessments' daily counts in PostgreSQL, shared by every instance. */
export class PostgresPolicyStore implements PolicyStore {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number = Date.now,
  ) {}

  async read(): Promise<StoredPolicy> {
    const [row] = await this.sql<{ revision: string; rules: string }[]>`SELECT revision, rules FROM policy`;
    return storedRules(row.rules, Number(row.revision), this.now());
  }

  async replace(rules: readonly PolicyRule[], revision: number): Promise<boolean> {
    const at = new Date(this.now()).toISOString();
    const rows = await this
      .sql`UPDATE policy SET rules = ${rulesJson(rules)}, revision = revision + 1, updated_at = ${at}
                                WHERE id = 1 AND revision = ${revision} RETURNING revision`;
    return rows.length > 0;
  }

  async revision(): Promise<number> {
    const [row] = await this.sql<{ revision: string }[]>`SELECT revision FROM policy`;
    return Number(row.revision);
  }

  async addCounts(rows: readonly PolicyCount[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((r) => ({ ...r }));
    await this.sql`INSERT INTO policy_counts ${this.sql(values, "day", "event", "rule", "outcome", "count")}
                   ON CONFLICT (day, event, rule, outcome) DO UPDATE SET count = policy_counts.count + excluded.count`;
  }

  async countsSince(day: string): Promise<PolicyCount[]> {
    const rows = await this.sql<(Omit<PolicyCount, "count"> & { count: string })[]>`
      SELECT day, event, rule, outcome, count FROM policy_counts WHERE day >= ${day} ORDER BY day, event, rule, outcome`;
    return rows.map((r) => ({ ...r, count: Number(r.count) }));
  }
}
