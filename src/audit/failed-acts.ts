/** Failed acts of the API and dashboard recorded one by one in a minute; the rest are counted. */
const RECORDED_PER_MINUTE = 30;
/** Actors remembered for the count; more are counted as "at least" this many. */
const MAX_ACTORS = 1_000;

/**
 * Bounds what one `manage` key or dashboard session can write to the audit log with acts that
 * change nothing (a removal of an absent line, a new line refused at the limits, a form that
 * fails): each instance records at most 30 such failures a minute one by one, as it does failed
 * sign-ins; beyond that they are counted, and the next event of those channels recorded says
 * how many went unrecorded, by how many actors. Acts that change something are always recorded.
 */
export class FailedActs {
  private minuteStart = Number.NEGATIVE_INFINITY;
  private recordedThisMinute = 0;
  private unrecorded = 0;
  private readonly actors = new Set<string>();

  /** A failed act: whether it is to be recorded; when not, it is counted. */
  mayRecord(actor: string, nowMs: number): boolean {
    if (nowMs - this.minuteStart >= 60_000) {
      this.minuteStart = nowMs;
      this.recordedThisMinute = 0;
    }
    if (this.recordedThisMinute < RECORDED_PER_MINUTE) {
      this.recordedThisMinute++;
      return true;
    }
    this.unrecorded++;
    if (this.actors.size < MAX_ACTORS) this.actors.add(actor);
    return false;
  }

  /** The sentence the next recorded event adds for what went unrecorded before it (null: nothing did), and the count starts again. */
  carried(): string | null {
    if (this.unrecorded === 0) return null;
    const actors = this.actors.size >= MAX_ACTORS ? `at least ${MAX_ACTORS}` : String(this.actors.size);
    const text =
      `before it, ${this.unrecorded} more failed act(s) by ${actors} actor(s) were counted, not recorded one by one ` +
      `(over ${RECORDED_PER_MINUTE} a minute)`;
    this.unrecorded = 0;
    this.actors.clear();
    return text;
  }
}
