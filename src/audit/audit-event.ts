/** The door an administrative act came through: the CLI on the VM, the dashboard, the admin API, or the server itself. */
export type AuditChannel = "cli" | "dashboard" | "api" | "server";

/** Every kind of event the audit log records; docs/audit.md says when each is written. */
export const AUDIT_ACTIONS = [
  "key.created",
  "key.updated",
  "key.rotated",
  "key.revoked",
  "email_override.added",
  "email_override.removed",
  "email_override.expired",
  "ip_override.added",
  "ip_override.removed",
  "ip_override.expired",
  "policy_rule.added",
  "policy_rule.changed",
  "policy_rule.removed",
  "policy_rule.expired",
  "policy.replaced",
  "reports.deleted",
  "admin_password.set",
  "admin_password.changed",
  "sign_in.succeeded",
  "sign_in.failed",
  "sign_in.locked_out",
  "sign_in.unlocked",
  "sign_out",
  "update.installed",
  "update.rolled_back",
  "update.failed",
  "database.migrated",
  "database.copied",
  "audit.pruned",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted, through which door: `root@vm1`, `session 1a2b3c4d from 203.0.113.7`, `key key_… (billing) from …` (actors.ts). */
export interface Actor {
  readonly channel: AuditChannel;
  readonly name: string;
}

/** Settings as they were and as they are, by name; JSON values, never a secret. */
export type AuditChange = Readonly<Record<string, { readonly before: unknown; readonly after: unknown }>>;

/** Whether the act did what it was asked: a failure is recorded too, with its reason in `detail`. */
export type AuditOutcome = "succeeded" | "failed";

/** One administrative event, as recorded. */
export interface AuditEvent {
  /** ISO 8601 instant, milliseconds, UTC. */
  readonly at: string;
  readonly action: AuditAction;
  readonly outcome: AuditOutcome;
  /** What was acted on: a key's id and name, an override line's target, an address, a dataset version. */
  readonly target: string;
  readonly actor: string;
  readonly channel: AuditChannel;
  readonly change: AuditChange | null;
  /** A sentence more: how many reports went, why the act failed. */
  readonly detail: string | null;
}

/** An event with its place in the log: ids grow in the order events were written. */
export interface AuditEntry extends AuditEvent {
  readonly id: number;
}
