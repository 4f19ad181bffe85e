import type { AuditRecorder } from "./audit-trail.ts";

/**
 * Deletes the events older than the retention, the log's only pruning, and records it when any
 * went (several instances may prune at once: the one that deleted them says so).
 */
export async function pruneAuditLog(audit: AuditRecorder, retentionMs: number, nowMs: number): Promise<number> {
  const before = new Date(nowMs - retentionMs).toISOString();
  const pruned = await audit.log.prune(before);
  if (pruned > 0)
    await audit.record("audit.pruned", "audit log", {
      detail: `${pruned} event(s) from before ${before} (RISKCHECK_AUDIT_RETENTION)`,
    });
  return pruned;
}
