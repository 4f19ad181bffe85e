import { type IpOverrideLine, type IpOverrideStore, isActive } from "./ip-override.ts";

/**
 * The IP override lines in force on this instance. Every second the server asks the store
 * for its generation, one small read, and reads the lines again only when it moved: a line
 * added, replaced or removed by any process (the CLI, the dashboard, the admin API, another
 * instance) applies within about a second. An expiry takes a line out without asking the store.
 */
export class IpOverrideWatch {
  private lines: readonly IpOverrideLine[] = [];
  private generation: number | null = null;
  /** When the next line in force expires; Infinity when none does. */
  private nextExpiryMs = Number.POSITIVE_INFINITY;
  active: readonly IpOverrideLine[] = [];

  constructor(
    private readonly store: IpOverrideStore,
    private readonly now: () => number,
  ) {}

  /** Reads the store if it changed; whether the lines in force changed. A failed read keeps the lines in force, and throws. */
  async refresh(): Promise<boolean> {
    const generation = await this.store.generation();
    if (generation === this.generation) return this.recompute(false);
    this.lines = await this.store.list();
    this.generation = generation;
    return this.recompute(true);
  }

  private recompute(reread: boolean): boolean {
    const nowMs = this.now();
    if (!reread && nowMs < this.nextExpiryMs) return false;
    const active = this.lines.filter((line) => isActive(line, nowMs));
    this.nextExpiryMs = active.reduce(
      (soonest, line) => (line.until === null ? soonest : Math.min(soonest, Date.parse(line.until))),
      Number.POSITIVE_INFINITY,
    );
    if (!reread && active.length === this.active.length) return false;
    this.active = active;
    return true;
  }
}
