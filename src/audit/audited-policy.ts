import { type EditResult, type PolicyEditor, editPolicy } from "../assess/policy-edits.ts";
import type { PolicyRule } from "../assess/policy-rule.ts";
import type { PolicyStore } from "../assess/policy-store.ts";
import type { AuditChange } from "./audit-event.ts";
import type { AuditRecorder } from "./audit-trail.ts";

/** What a rule says, as the log records it (its place as `position`, 1-based); the author and creation are the actor's and the event's. */
const WORDS = ["position", "conditions", "decision", "reason", "expires", "mode"] as const;

function words(rules: readonly PolicyRule[], id: string): Record<(typeof WORDS)[number], unknown> | null {
  const at = rules.findIndex((r) => r.id === id);
  if (at === -1) return null;
  const { conditions, decision, reason, expires, mode } = rules[at];
  return { position: at + 1, conditions, decision, reason, expires, mode };
}

/** The words of rule `id` that differ between the set as it was and as it is (null: no such rule). */
export function ruleChange(before: readonly PolicyRule[], after: readonly PolicyRule[], id: string): AuditChange {
  const was = words(before, id);
  const now = words(after, id);
  const change: Record<string, { before: unknown; after: unknown }> = {};
  for (const name of WORDS) {
    const a = was?.[name] ?? null;
    const b = now?.[name] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) change[name] = { before: a, after: b };
  }
  return change;
}

/** A whole set replaced, in a sentence: which rules came, went and changed. */
function replacement({ before, after }: EditResult): { change: AuditChange; detail: string } {
  const ids = (rules: readonly PolicyRule[]) => rules.map((r) => r.id);
  const had = new Set(ids(before));
  const has = new Set(ids(after));
  const added = ids(after).filter((id) => !had.has(id));
  const removed = ids(before).filter((id) => !has.has(id));
  const changed = ids(after).filter((id) => had.has(id) && Object.keys(ruleChange(before, after, id)).length > 0);
  const list = (what: string, names: string[]) => (names.length === 0 ? [] : [`${what} ${names.join(", ")}`]);
  const parts = [...list("added", added), ...list("removed", removed), ...list("changed", changed)];
  return {
    change: { rules: { before: ids(before), after: ids(after) } },
    detail: `${after.length} rules in force${parts.length ? `: ${parts.join("; ")}` : ", none changed"}`,
  };
}

/**
 * The rules read and edited, every edit recorded by `audit`'s actor in the edit's transaction: an edit that meets no
 * rule or breaks a limit is a failed one.
 */
export function auditedPolicy(
  store: PolicyStore,
  audit: AuditRecorder<{ readonly policy: PolicyStore }>,
): PolicyEditor {
  return {
    read: () => store.read(),
    apply: (edit) =>
      audit.act(
        edit.action === "replaced" ? "policy.replaced" : `policy_rule.${edit.action}`,
        edit.target,
        (tx) => editPolicy(tx.policy, edit),
        (result) =>
          edit.action === "replaced"
            ? replacement(result)
            : {
                change: ruleChange(result.before, result.after, edit.target),
                detail:
                  edit.action === "added" && result.before.some((r) => r.id === edit.target)
                    ? "replaced the rule there was"
                    : null,
              },
      ),
  };
}
