import { ExpiryQueue } from "./expiry-queue.ts";
import type { LineStore } from "./overrides.ts";

type Line = { readonly until: string | null };

/** What else keeps the lines in force, a line at a time (the IP lines' compiled table). */
export interface LinesInForce<L> {
  set(line: L): void;
  delete(target: string): void;
  clear(): void;
}

/**
 * One kind of override line in force on this instance, kept in step with the store a change
 * at a time: each refresh asks what changed since the generation it last saw (one small read
 * when nothing did) and applies each changed line, so a line added, replaced or removed by any
 * process — the CLI, the dashboard, the admin API, another instance — costs every instance
 * O(log n), however many lines there are; a first refresh reads them all. A line whose end has
 * passed goes out of force at the next `expire`, without asking the store, and is kept for the
 * audit log's `*.expired` event (`takeExpired`). Refreshes run one at a time.
 */
export class OverrideWatch<L extends Line> {
  private generation: number | null = null;
  private readonly ends = new ExpiryQueue();
  private expired: L[] = [];
  private running: Promise<unknown> = Promise.resolve();
  /** The lines in force, by target. */
  readonly active = new Map<string, L>();

  constructor(
    private readonly store: Pick<LineStore<L>, "changesSince">,
    private readonly targetOf: (line: L) => string,
    private readonly now: () => number,
    private readonly also: LinesInForce<L> | null = null,
  ) {}

  /** Applies what changed in the store; whether the lines in force changed. A failed read keeps them, and throws. */
  refresh(): Promise<boolean> {
    const run = this.running.then(() => this.sync());
    this.running = run.catch(() => {});
    return run;
  }

  private async sync(): Promise<boolean> {
    const changes = await this.store.changesSince(this.generation);
    const nowMs = this.now();
    let changed = false;
    if ("all" in changes) {
      changed = this.active.size > 0 || changes.all.length > 0;
      this.active.clear();
      this.also?.clear();
      this.ends.clear();
      for (const line of changes.all) this.apply(this.targetOf(line), line, nowMs);
    } else {
      for (const { target, line } of changes.changed) changed = this.apply(target, line, nowMs) || changed;
    }
    this.generation = changes.generation;
    return this.expire() || changed;
  }

  /** Puts the line in force, or takes the target's out (null, or a line that has ended); whether anything changed. */
  private apply(target: string, line: L | null, nowMs: number): boolean {
    const endMs = line?.until == null ? Number.POSITIVE_INFINITY : Date.parse(line.until);
    if (line === null || endMs <= nowMs) {
      if (line !== null) this.expired.push(line);
      if (!this.active.delete(target)) return false;
      this.also?.delete(target);
      return true;
    }
    this.active.set(target, line);
    this.also?.set(line);
    if (endMs !== Number.POSITIVE_INFINITY) this.ends.add(endMs, target);
    return true;
  }

  /** Takes out of force the lines whose end has passed; whether any went. */
  expire(): boolean {
    const nowMs = this.now();
    let any = false;
    for (let ended = this.ends.takeEnded(nowMs); ended !== null; ended = this.ends.takeEnded(nowMs)) {
      const line = this.active.get(ended.target);
      // A line replaced since its end was queued has its own entry.
      if (line?.until == null || Date.parse(line.until) !== ended.endMs) continue;
      this.active.delete(ended.target);
      this.also?.delete(ended.target);
      this.expired.push(line);
      any = true;
    }
    return any;
  }

  /** The lines that went out of force by their end since the last call. */
  takeExpired(): L[] {
    const taken = this.expired;
    this.expired = [];
    return taken;
  }
}
