import { type OverrideLine, type OverrideStore, activeOverrides } from "./overrides.ts";

/**
 * The override lines in force, read again from the store every few seconds by each
 * running instance: a line added, removed or expired changes answers without an update.
 */
export class OverrideWatch {
  private lines: readonly OverrideLine[] = [];
  private signature = "[]";
  active: ReadonlyMap<string, OverrideLine> = new Map();

  constructor(
    private readonly store: OverrideStore,
    private readonly now: () => number,
  ) {}

  /** Reads the store; whether the lines in force changed. A failed read keeps the lines in force, and throws. */
  async refresh(): Promise<boolean> {
    this.lines = await this.store.list();
    return this.recompute();
  }

  /** Whether an expiry has taken a line out since the last look, without asking the store. */
  recompute(): boolean {
    const active = activeOverrides(this.lines, this.now());
    const signature = JSON.stringify([...active.values()]);
    if (signature === this.signature) return false;
    this.signature = signature;
    this.active = active;
    return true;
  }
}
