import type { LocalReportIndex } from "./local-report-index.ts";
import type { ReportSettings } from "./report.ts";
import type { ReportRow, ReportStore } from "./report-store.ts";

/** Pruning is cheap but needs no more than this. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Keeps one instance's index in step with the store, read every few seconds as the email
 * overrides are: reports another instance accepted, and deletions from anywhere (the CLI,
 * the dashboard of another instance), reach the verdict within one read. The first read
 * fills the index page by page; after it, a deletion is applied to the index as it was made
 * (an address's reports, a key's), never by reading everything again.
 */
export class ReportWatch {
  private cursor: string | null = null;
  private running: Promise<void> = Promise.resolve();
  private lastPruneMs = -Infinity;

  constructor(
    private readonly store: ReportStore,
    private readonly index: LocalReportIndex,
    private readonly settings: ReportSettings,
    private readonly now: () => number,
  ) {}

  /**
   * Reads what changed; prunes reports past retention now and then. A failed read leaves the
   * index as it was, and throws. Calls run one after the other, each reading from where the
   * last one ended.
   */
  refresh(): Promise<void> {
    const next = this.running.then(() => this.readChanges());
    this.running = next.catch(() => {});
    return next;
  }

  private async readChanges(): Promise<void> {
    const nowMs = this.now();
    const windowStartMs = nowMs - this.settings.windowMs;
    if (nowMs - this.lastPruneMs >= PRUNE_EVERY_MS) {
      this.lastPruneMs = nowMs;
      await this.store.prune(nowMs - this.settings.retentionMs, nowMs);
      // What aged out of the window counts for nothing: its memory goes too.
      await this.index.forgetBefore(windowStartMs);
    }
    if (this.cursor === null) {
      const filled = this.index.emptyCopy();
      const changes = await this.store.changes(null, windowStartMs, (rows) => filled.add(rows));
      this.index.replaceWith(filled);
      this.cursor = changes.cursor;
      return;
    }
    const added: ReportRow[] = [];
    const changes = await this.store.changes(this.cursor, windowStartMs, (rows) => {
      for (const row of rows) added.push(row);
    });
    for (const deletion of changes.deletions) await this.index.delete(deletion);
    this.index.add(added);
    this.cursor = changes.cursor;
  }
}
