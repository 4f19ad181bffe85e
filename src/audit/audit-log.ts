import { AUDIT_ACTIONS, type AuditEntry, type AuditEvent } from "./audit-event.ts";

/** Which events to read: every filter given must hold. */
export interface AuditFilter {
  /** ISO instant: events at or after it. */
  readonly since?: string;
  /** An action (`key.revoked`) or its family (`key`: every `key.*`). */
  readonly action?: string;
  /** Text the target contains, any case: a key's id or name, a domain, an address. */
  readonly target?: string;
}

/** A page of the log: newest first below the id `before`, or oldest first above the id `after`. */
export type AuditPage =
  | { readonly order: "newest_first"; readonly before?: number; readonly limit: number }
  | { readonly order: "oldest_first"; readonly after?: number; readonly limit: number };

/**
 * The audit log, in the database every instance shares. Append-only from the program's side:
 * nothing edits a row (the databases refuse an UPDATE), and only retention removes them.
 */
export interface AuditLog {
  /**
   * Writes the event. `once`: a name of the event that several instances may each see (a line's
   * expiry); the second write of one name writes nothing and gives null.
   */
  append(event: AuditEvent, once?: string): Promise<AuditEntry | null>;
  read(filter: AuditFilter, page: AuditPage): Promise<AuditEntry[]>;
  /** Removes the events before the ISO instant; how many went. */
  prune(before: string): Promise<number>;
}

/** A stored row as both databases give it back. */
export interface AuditRow {
  id: number | string;
  at: string;
  action: string;
  outcome: string;
  target: string;
  actor: string;
  channel: string;
  change: string | null;
  detail: string | null;
}

export const entryOfRow = (row: AuditRow): AuditEntry => ({
  id: Number(row.id),
  at: row.at,
  action: row.action as AuditEntry["action"],
  outcome: row.outcome as AuditEntry["outcome"],
  target: row.target,
  actor: row.actor,
  channel: row.channel as AuditEntry["channel"],
  change: row.change === null ? null : JSON.parse(row.change),
  detail: row.detail,
});

/** The families an action filter may also name: `key` for every `key.*`. */
export function actionFamilies(): string[] {
  return [...new Set(AUDIT_ACTIONS.filter((a) => a.includes(".")).map((a) => a.slice(0, a.indexOf("."))))];
}

/** Whether the filter's text names an action or a family of them; stores match `action = A` or `action` starting `A.`. */
export function isActionFilter(text: string): boolean {
  return (AUDIT_ACTIONS as readonly string[]).includes(text) || actionFamilies().includes(text);
}
