import { storageFaultOf } from "../faults/storage-fault.ts";
import type { Actor, AuditAction, AuditChange, AuditEntry, AuditEvent, AuditOutcome } from "./audit-event.ts";
import type { AuditLines } from "./audit-lines.ts";
import type { AuditLog } from "./audit-log.ts";
import { FailedActs } from "./failed-acts.ts";

/** What an event says beyond who did what to which target. */
export interface AuditDetails {
  readonly outcome?: AuditOutcome;
  readonly change?: AuditChange | null;
  readonly detail?: string | null;
  /** See AuditLog.append. */
  readonly once?: string;
}

/**
 * What describes a finished act: the event's details, and its target once the act has named it
 * (a key's id); null when the act found everything as asked and changed nothing: no event.
 */
export type Described<T> = (result: T) => (AuditDetails & { readonly target?: string }) | null;

/**
 * The database the log is in, as the trail needs it: the log, and transactions in which an
 * act's writes and its event commit together (`Stores` is one, its `StoreWrites` the `S`).
 */
export interface AuditDatabase<S extends { readonly audit: AuditLog }> {
  readonly audit: AuditLog;
  transaction<T>(work: (tx: S) => Promise<T>): Promise<T>;
}

/**
 * One actor's hand on the trail (the CLI's user, a dashboard session, an API key): see
 * AuditTrail's methods. `S` is what its acts write: each names only the stores it needs.
 */
export interface AuditRecorder<S = unknown> {
  readonly actor: Actor;
  readonly log: AuditLog;
  record(action: AuditAction, target: string, details?: AuditDetails): Promise<AuditEntry | null>;
  act<T>(action: AuditAction, target: string, work: (tx: S) => Promise<T>, describe?: Described<T>): Promise<T>;
}

/** A failure's reason as the log keeps it: one line. */
function reasonOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").slice(0, 500);
}

/** The doors anyone with a key or a session can flood: their failed acts are bounded (FailedActs). */
const BOUNDED_CHANNELS: ReadonlySet<string> = new Set(["api", "dashboard"]);

/** Records administrative events: into the database, and as JSON lines where the operator asked for them. */
export class AuditTrail<S extends { readonly audit: AuditLog } = { readonly audit: AuditLog }> {
  private readonly failedActs = new FailedActs();

  constructor(
    private readonly database: AuditDatabase<S>,
    private readonly options: {
      readonly now: () => number;
      readonly lines?: AuditLines | null;
      readonly logError: (line: string) => void;
    },
  ) {}

  get log(): AuditLog {
    return this.database.audit;
  }

  /** The trail as one actor writes to it. */
  as(actor: Actor): AuditRecorder<S> {
    return {
      actor,
      log: this.database.audit,
      record: async (action, target, details) =>
        this.shipped(await this.append(this.database.audit, actor, action, target, details)),
      act: (action, target, work, describe) => this.act(actor, action, target, work, describe),
    };
  }

  private event(actor: Actor, action: AuditAction, target: string, details: AuditDetails): AuditEvent {
    return {
      at: new Date(this.options.now()).toISOString(),
      action,
      outcome: details.outcome ?? "succeeded",
      target,
      actor: actor.name,
      channel: actor.channel,
      change: details.change ?? null,
      detail: details.detail ?? null,
    };
  }

  /** Writes one event; null when `once` names an event recorded already. */
  private append(log: AuditLog, actor: Actor, action: AuditAction, target: string, details: AuditDetails = {}) {
    return log.append(this.event(actor, action, target, details), details.once);
  }

  /** The event, written to the database already, as a JSON line too. */
  private shipped(entry: AuditEntry | null): AuditEntry | null {
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
   * Does `work` and writes what `describe` says of its result in the same transaction: the act
   * and its event are committed together or not at all. When `work` throws, nothing of it is
   * kept and the failure is recorded with its reason (then the error goes on as it came; a
   * failure to record that is logged, not thrown over it) — unless the database itself failed,
   * which recording would meet again.
   */
  private async act<T>(
    actor: Actor,
    action: AuditAction,
    target: string,
    work: (tx: S) => Promise<T>,
    describe: Described<T> = () => ({}),
  ): Promise<T> {
    let entry: AuditEntry | null = null;
    let result: T;
    let worked = false;
    try {
      result = await this.database.transaction(async (tx) => {
        const done = await work(tx);
        worked = true;
        const described = this.bounded(actor, describe(done));
        if (described !== null)
          entry = await this.append(tx.audit, actor, action, described.target ?? target, described);
        return done;
      });
    } catch (err) {
      const failed =
        !worked && storageFaultOf(err) === null && this.bounded(actor, { outcome: "failed", detail: reasonOf(err) });
      if (failed)
        await this.append(this.database.audit, actor, action, target, failed)
          .then((recorded) => this.shipped(recorded))
          .catch((recordErr) =>
            this.options.logError(`riskcheck: could not record ${action} in the audit log: ${reasonOf(recordErr)}`),
          );
      throw err;
    }
    this.shipped(entry);
    return result;
  }

  /**
   * What an act of the API or the dashboard records: a failure only while FailedActs lets it
   * (else null: counted), and either with what went unrecorded before it.
   */
  private bounded<D extends AuditDetails>(actor: Actor, details: D | null): D | null {
    if (details === null || !BOUNDED_CHANNELS.has(actor.channel)) return details;
    if (details.outcome === "failed" && !this.failedActs.mayRecord(actor.name, this.options.now())) return null;
    const carried = this.failedActs.carried();
    return carried === null ? details : { ...details, detail: [details.detail, carried].filter(Boolean).join("; ") };
  }
}
