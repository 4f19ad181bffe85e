/** Failed sign-ins recorded one by one in a minute; the rest are counted (sign-in floods from many addresses). */
const RECORDED_PER_MINUTE = 30;
/** Addresses remembered for the count; a flood from more is counted as "at least" this many. */
const MAX_ADDRESSES = 10_000;

/** What went unrecorded before the failure (or sign-in) now recorded. */
export interface Unrecorded {
  readonly failures: number;
  readonly addresses: number;
}

/**
 * Bounds what unauthenticated clients can write to the audit log: at most 30 failed sign-ins
 * a minute are recorded one by one (each instance), so a flood from ever-new addresses
 * cannot fill the disk over the log's retention; beyond that they are counted, and the count
 * goes with the next sign-in, failed or not, that is recorded.
 */
export class FailedSignInRecords {
  private minuteStart = Number.NEGATIVE_INFINITY;
  private recordedThisMinute = 0;
  private unrecorded = 0;
  private readonly addresses = new Set<string>();

  /** A failed sign-in: what went unrecorded before it when it is to be recorded, or null when it is only counted. */
  failure(address: string, nowMs: number): Unrecorded | null {
    if (nowMs - this.minuteStart >= 60_000) {
      this.minuteStart = nowMs;
      this.recordedThisMinute = 0;
    }
    if (this.recordedThisMinute >= RECORDED_PER_MINUTE) {
      this.unrecorded++;
      if (this.addresses.size < MAX_ADDRESSES) this.addresses.add(address);
      return null;
    }
    this.recordedThisMinute++;
    return this.carried();
  }

  /** A successful sign-in, always recorded: what went unrecorded before it. */
  success(): Unrecorded {
    return this.carried();
  }

  private carried(): Unrecorded {
    const carried = { failures: this.unrecorded, addresses: this.addresses.size };
    this.unrecorded = 0;
    this.addresses.clear();
    return carried;
  }
}

/** The sentence an event adds for what went unrecorded before it; null when nothing did. */
export function unrecordedText({ failures, addresses }: Unrecorded): string | null {
  if (failures === 0) return null;
  return `before it, ${failures} more failed sign-in(s) from ${addresses >= MAX_ADDRESSES ? `at least ${MAX_ADDRESSES}` : addresses} address(es) were counted, not recorded one by one (over ${RECORDED_PER_MINUTE} a minute)`;
}
