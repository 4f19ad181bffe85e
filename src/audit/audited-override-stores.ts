import {
  type LineStore,
  OverrideError,
  type OverrideLimits,
  type OverrideLine,
  type OverrideStore,
  sameWords,
} from "../email/overrides.ts";
import type { IpOverrideLine, IpOverrideStore } from "../ip/overrides/ip-override.ts";
import type { AuditChange } from "./audit-event.ts";
import type { AuditRecorder } from "./audit-trail.ts";

/** What an override line says, as the log records it: the author typed is the actor's business. */
type LineWords = Pick<OverrideLine, "action" | "reason" | "until" | "keyId">;

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

/** The stores an override act writes, by kind. */
export interface OverrideWrites {
  readonly emailOverrides: OverrideStore;
  readonly ipOverrides: IpOverrideStore;
}

/** What a put did: the line stored, and whether it replaced one (`before`) or found it as asked already (`changed` false). */
export interface PutOutcome<L> {
  readonly line: L;
  readonly before: L | null;
  readonly changed: boolean;
}

/** The lines of one kind, read as stored, every change recorded by `audit`'s actor in the change's own transaction. */
export interface AuditedLines<L> extends Pick<LineStore<L>, "list" | "page" | "find"> {
  /**
   * Adds the line or replaces the one for its target; a line already there as asked is left
   * as it is, and nothing is recorded. A new line beyond the limits is refused (OverrideError
   * `limit_reached`), and the refusal recorded. `detail` says more on the record (a forced breadth).
   */
  put(line: L, detail?: string | null): Promise<PutOutcome<L>>;
  /** Whether there was a line to remove; a removal that found none is recorded as failed. */
  remove(target: string): Promise<boolean>;
}

function auditedLines<L extends LineWords>(
  store: LineStore<L>,
  linesOf: (tx: OverrideWrites) => LineStore<L>,
  audit: AuditRecorder<OverrideWrites>,
  kind: "email_override" | "ip_override",
  targetOf: (line: L) => string,
  limits: OverrideLimits,
): AuditedLines<L> {
  return {
    list: () => store.list(),
    page: (filter, after, limit) => store.page(filter, after, limit),
    find: (target) => store.find(target),
    put: (line, detail = null) =>
      audit.act(
        `${kind}.added`,
        targetOf(line),
        async (tx): Promise<PutOutcome<L>> => {
          const lines = linesOf(tx);
          const before = await lines.find(targetOf(line));
          if (before !== null && sameWords(before, line)) return { line: before, before, changed: false };
          if (before === null)
            refuseBeyondLimits(await lines.counts(line.keyId ?? null), line.keyId !== undefined, limits);
          await lines.put(line);
          return { line, before, changed: true };
        },
        ({ before, changed }) =>
          changed
            ? {
                change: lineChange(before, line),
                detail:
                  [before === null ? null : "replaced the line there was", detail].filter(Boolean).join("; ") || null,
              }
            : null,
      ),
    remove: (target) =>
      audit
        .act(
          `${kind}.removed`,
          target,
          async (tx) => {
            const lines = linesOf(tx);
            const before = await lines.find(target);
            if (before !== null) await lines.remove(target);
            return before;
          },
          (before) =>
            before === null
              ? { outcome: "failed", detail: "there was no line for it" }
              : { change: lineChange(before, null) },
        )
        .then((before) => before !== null),
  };
}

/** A new line is refused once its kind holds `limits.lines`, or its API key has added `limits.linesPerKey`. */
function refuseBeyondLimits(counts: { total: number; byKey: number }, byKey: boolean, limits: OverrideLimits): void {
  if (counts.total >= limits.lines)
    throw new OverrideError(
      `there are ${counts.total} lines of this kind already, the most the server keeps (RISKCHECK_MAX_OVERRIDE_LINES): remove some first`,
      "limit_reached",
    );
  if (byKey && counts.byKey >= limits.linesPerKey)
    throw new OverrideError(
      `this API key has added ${counts.byKey} lines of this kind, the most one key may ` +
        `(RISKCHECK_MAX_OVERRIDE_LINES_PER_KEY): remove some first`,
      "limit_reached",
    );
}

/** The email override lines, every addition and removal recorded by `audit`'s actor. */
export function auditedEmailOverrides(
  store: OverrideStore,
  audit: AuditRecorder<OverrideWrites>,
  limits: OverrideLimits,
): AuditedLines<OverrideLine> {
  return auditedLines(
    store,
    (tx) => tx.emailOverrides,
    audit,
    "email_override",
    (line) => line.domain,
    limits,
  );
}

/** The IP override lines, likewise. */
export function auditedIpOverrides(
  store: IpOverrideStore,
  audit: AuditRecorder<OverrideWrites>,
  limits: OverrideLimits,
): AuditedLines<IpOverrideLine> {
  return auditedLines(
    store,
    (tx) => tx.ipOverrides,
    audit,
    "ip_override",
    (line) => line.target,
    limits,
  );
}
