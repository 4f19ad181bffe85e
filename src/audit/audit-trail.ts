import type { Actor, AuditAction, AuditChange, AuditEntry, AuditOutcome } from "./audit-event.ts";
import type { AuditLines } from "./audit-lines.ts";
import type { AuditLog } from "./audit-log.ts";

/** What an event says beyond who did what to which target. */
export interface AuditDetails {
  readonly outcome?: AuditOutcome;
  readonly change?: AuditChange | null;
  readonly detail?: string | null;
  /** See AuditLog.append. */
  readonly once?: string;
}

/** What describes a finished act: the event's details, and its target once the act has named it (a key's id). */
export type Described<T> = (result: T) => AuditDetails & { readonly target?: string };

/** One actor's hand on the trail (the CLI's user, a dashboard session, an API key): see AuditTrail's methods. */
export interface AuditRecorder {
  readonly actor: Actor;
  readonly trail: AuditTrail;
  record(action: AuditAction, target: string, details?: AuditDetails): Promise<AuditEntry | null>;
  act<T>(action: AuditAction, target: string, work: () => Promise<T>, describe?: Described<T>): Promise<T>;
}

/** A failure's reason as the log keeps it: one line. */
function reasonOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").slice(0, 500);
}

/** Records administrative events: into the database, and as JSON lines where the operator asked for them. */
export class AuditTrail {
  constructor(
    readonly log: AuditLog,
    private readonly options: {
      readonly now: () => number;
      readonly lines?: AuditLines | null;
      readonly logError: (line: string) => void;
    },
  ) {}

  /** The trail as one actor writes to it. */
  as(actor: Actor): AuditRecorder {
    return {
      actor,
      trail: this,
      record: (action, target, details) => this.record(actor, action, target, details),
      act: (action, target, work, describe) => this.act(actor, action, target, work, describe),
    };
  }

  /** Writes one event; null when `once` names an event recorded already. */
  private async record(
    actor: Actor,
    action: AuditAction,
    target: string,
    details: AuditDetails = {},
  ): Promise<AuditEntry | null> {
    const entry = await this.log.append(
      {
        at: new Date(this.options.now()).toISOString(),
        action,
        outcome: details.outcome ?? "succeeded",
        target,
        actor: actor.name,
        channel: actor.channel,
        change: details.change ?? null,
        detail: details.detail ?? null,
      },
      details.once,
    );
    if (entry !== null && this.options.lines)
      try {
        this.options.lines(entry);
      } catch (err) {
        // The event is in the database; a log shipper's file that filled up does not undo the act.
        this.options.logError(`riskcheck: could not write the audit event's JSON line: ${reasonOf(err)}`);
      }
    return entry;
  }

  /**
   * Does `work` and records it: what `describe` says of its result, or, when it throws, the
   * failure with its reason (then the error goes on as it came; a failure to record that is
   * logged, not thrown over it; a database that was itself the failure is not asked again).
   */
  private async act<T>(
    actor: Actor,
    action: AuditAction,
    target: string,
    work: () => Promise<T>,
    describe: Described<T> = () => ({}),
  ): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (this.log.canRecordFailure(err))
        await this.record(actor, action, target, { outcome: "failed", detail: reasonOf(err) }).catch((recordErr) =>
          this.options.logError(`riskcheck: could not record ${action} in the audit log: ${reasonOf(recordErr)}`),
        );
      throw err;
    }
    const described = describe(result);
    await this.record(actor, action, described.target ?? target, described);
    return result;
  }
}
