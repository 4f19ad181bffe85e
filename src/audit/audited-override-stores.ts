import type { OverrideLine, OverrideStore } from "../email/overrides.ts";
import type { IpOverrideLine, IpOverrideStore } from "../ip/overrides/ip-override.ts";
import type { AuditChange } from "./audit-event.ts";
import type { AuditRecorder } from "./audit-trail.ts";

/** What an override line says, as the log records it: the author typed is the actor's business. */
type LineWords = Pick<OverrideLine, "action" | "reason" | "until">;

/** The words that differ between a line as it was and as it is (null: no line). */
export function lineChange(before: LineWords | null, after: LineWords | null): AuditChange {
  const change: Record<string, { before: unknown; after: unknown }> = {};
  for (const name of ["action", "reason", "until"] as const) {
    const was = before?.[name] ?? null;
    const now = after?.[name] ?? null;
    if (was !== now) change[name] = { before: was, after: now };
  }
  return change;
}

interface LineStore<L> {
  list(): Promise<L[]>;
  put(line: L): Promise<void>;
  remove(target: string): Promise<boolean>;
}

/** put and remove of one kind of line, recorded: a removal that found no line is a failed one. */
function auditedLines<L extends LineWords>(
  store: LineStore<L>,
  audit: AuditRecorder,
  kind: "email_override" | "ip_override",
  targetOf: (line: L) => string,
): LineStore<L> {
  const current = async (target: string) => (await store.list()).find((line) => targetOf(line) === target) ?? null;
  return {
    list: () => store.list(),
    put: async (line) => {
      const before = await current(targetOf(line));
      await audit.act(
        `${kind}.added`,
        targetOf(line),
        () => store.put(line),
        () => ({ change: lineChange(before, line), detail: before === null ? null : "replaced the line there was" }),
      );
    },
    remove: async (target) => {
      const before = await current(target);
      return audit.act(
        `${kind}.removed`,
        target,
        () => store.remove(target),
        (removed) =>
          removed ? { change: lineChange(before, null) } : { outcome: "failed", detail: "there was no line for it" },
      );
    },
  };
}

/** The email override lines, every addition and removal recorded by `audit`'s actor. */
export function auditedEmailOverrides(store: OverrideStore, audit: AuditRecorder): OverrideStore {
  return auditedLines<OverrideLine>(store, audit, "email_override", (line) => line.domain);
}

/** The IP override lines, likewise. */
export function auditedIpOverrides(store: IpOverrideStore, audit: AuditRecorder): IpOverrideStore {
  return {
    ...auditedLines<IpOverrideLine>(store, audit, "ip_override", (line) => line.target),
    generation: () => store.generation(),
  };
}
