import type { StorageFaultReason, StorageUnavailable } from "./storage-fault.ts";

/** A fault is in the past once this long has gone by without another: the background reads every second keep a lasting one in view. */
const DEGRADED_HOLD_MS = 10_000;

export type StorageState =
  | { readonly status: "ok" }
  | {
      readonly status: "degraded";
      readonly reason: StorageFaultReason;
      /** The first fault of this spell, ISO. */
      readonly since: string;
      readonly lastFaultAt: string;
    };

/**
 * What this instance has seen of its database: every fault a request or a background job
 * met (a lock, an unreachable server, a full disk), counted by reason for /metrics, and
 * whether it is degraded — a fault within the last DEGRADED_HOLD_MS — since when and why,
 * for /healthz (never the fault's message, which may name paths: the log has it). The
 * checks are answered from memory all along; writes answer 503.
 */
export class StorageHealth {
  private readonly faults = new Map<StorageFaultReason, number>();
  private spell: { sinceMs: number; lastMs: number; reason: StorageFaultReason } | null = null;

  constructor(private readonly now: () => number) {}

  /** Counts the fault; whether it is news for the log: the first of a spell, or another reason than the last. */
  noted(fault: StorageUnavailable): boolean {
    const nowMs = this.now();
    this.faults.set(fault.reason, (this.faults.get(fault.reason) ?? 0) + 1);
    const spell = this.spell;
    const ongoing = spell !== null && nowMs - spell.lastMs < DEGRADED_HOLD_MS;
    this.spell = { sinceMs: ongoing ? spell.sinceMs : nowMs, lastMs: nowMs, reason: fault.reason };
    return !ongoing || spell.reason !== fault.reason;
  }

  state(): StorageState {
    const spell = this.spell;
    if (spell === null || this.now() - spell.lastMs >= DEGRADED_HOLD_MS) return { status: "ok" };
    return {
      status: "degraded",
      reason: spell.reason,
      since: new Date(spell.sinceMs).toISOString(),
      lastFaultAt: new Date(spell.lastMs).toISOString(),
    };
  }

  /** Faults seen since start, by reason. */
  counts(): ReadonlyMap<StorageFaultReason, number> {
    return this.faults;
  }
}
