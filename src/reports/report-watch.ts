import type { LocalReportIndex } from "./local-report-index.ts";
import type { ReportSettings } from "./report.ts";
import type { ReportStore } from "./report-store.ts";

/** Pruning is cheap but needs no more than this. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Keeps one instance's index in step with the store, read every few seconds as the email
 * overrides are: reports another instance accepted, and deletions from anywhere (the CLI,
 * the dashboard of another instance), reach the verdict within one read.
 */
export class ReportWatch {
  private cursor: string | null = null;
  private lastPruneMs = -Infinity;

  constructor(
    private readonly store: ReportStore,
    private readonly index: LocalReportIndex,
    private readonly settings: ReportSettings,
    private readonly now: () => number,
  ) {}

  /** Reads what changed; prunes reports past retention now and then. A failed read leaves the index as it was, and throws. */
  async refresh(): Promise<void> {
    const nowMs = this.now();
    if (nowMs - this.lastPruneMs >= PRUNE_EVERY_MS) {
      this.lastPruneMs = nowMs;
      await this.store.prune(nowMs - this.settings.retentionMs);
    }
    const changes = await this.store.changes(this.cursor, nowMs - this.settings.windowMs);
    if (changes.reset) this.index.reset(changes.rows);
    else this.index.add(changes.rows);
    this.cursor = changes.cursor;
  }
}
