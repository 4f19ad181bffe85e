import { type SourceProblem, describeGroup, groupProblems } from "./source-problems.ts";

/** What one refresh did. */
export interface RefreshResult {
  readonly finishedAt: number;
  /** The version made current, or null when nothing changed or nothing was installed. */
  readonly version: string | null;
  /** Why nothing was installed (a guard refused the swap, the update could not run), or null. */
  readonly error: string | null;
  /** Sources that could not be refreshed; the others went ahead and they keep their data. */
  readonly failedSources: readonly SourceProblem[];
}

export interface RefreshState {
  readonly everyMs: number;
  readonly running: boolean;
  readonly nextAt: number | null;
  readonly lastSuccessAt: number | null;
  readonly last: RefreshResult | null;
}

export interface RefreshSchedulerOptions {
  readonly everyMs: number;
  /** When the data was last refreshed from the network, or null for never (bundled data only). */
  readonly lastRefreshedAt: number | null;
  readonly run: () => Promise<RefreshResult>;
  readonly now: () => number;
  /** [0, 1), for jitter. */
  readonly random: () => number;
  readonly timers: { set(run: () => void, ms: number): unknown; clear(handle: unknown): void };
  readonly log: (line: string) => void;
}

/** The first refresh of data never refreshed (or overdue) starts within this, plus as much jitter. */
const SOON_MS = 30_000;
/** A refresh that installed nothing is tried again after this (or the period, if shorter). */
const RETRY_MS = 3_600_000;
/** Jitter is a tenth of the period, at most half an hour, so instances do not refresh in step. */
const MAX_JITTER_MS = 1_800_000;

/**
 * Refreshes the datasets every period, as `riskcheck update` would. Data never refreshed
 * from the network, or older than a period, is refreshed within a minute of start; a
 * refresh that installed nothing is retried an hour later (plus jitter). One runs at a time.
 */
export class RefreshScheduler {
  private timer: unknown = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private nextAt: number | null = null;
  private lastSuccessAt: number | null;
  private last: RefreshResult | null = null;

  constructor(private readonly o: RefreshSchedulerOptions) {
    this.lastSuccessAt = o.lastRefreshedAt;
  }

  start(): void {
    const { everyMs, lastRefreshedAt, now, random } = this.o;
    const due = lastRefreshedAt === null || now() - lastRefreshedAt >= everyMs;
    this.schedule(
      due ? Math.min(everyMs, SOON_MS + random() * SOON_MS) : lastRefreshedAt + everyMs - now() + this.jitter(),
    );
  }

  /** Cancels the next refresh; a running one is left to its caller to stop. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.o.timers.clear(this.timer);
    this.timer = null;
    this.nextAt = null;
  }

  state(): RefreshState {
    return {
      everyMs: this.o.everyMs,
      running: this.running !== null,
      nextAt: this.nextAt,
      lastSuccessAt: this.lastSuccessAt,
      last: this.last,
    };
  }

  private jitter(): number {
    return this.o.random() * Math.min(this.o.everyMs / 10, MAX_JITTER_MS);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    const delay = Math.max(0, ms);
    this.nextAt = this.o.now() + delay;
    this.timer = this.o.timers.set(() => void this.refresh(), delay);
  }

  private refresh(): Promise<void> {
    this.timer = null;
    this.nextAt = null;
    this.running ??= (async () => {
      let result: RefreshResult;
      try {
        result = await this.o.run();
      } catch (err) {
        result = { finishedAt: this.o.now(), version: null, error: (err as Error).message, failedSources: [] };
      }
      this.last = result;
      if (result.error === null) this.lastSuccessAt = result.finishedAt;
      this.o.log(describe(result));
      this.running = null;
      this.schedule((result.error === null ? this.o.everyMs : Math.min(this.o.everyMs, RETRY_MS)) + this.jitter());
    })();
    return this.running;
  }
}

/** The one log line of a refresh: failed sources grouped by the kind of problem. */
function describe(r: RefreshResult): string {
  const groups = groupProblems(r.failedSources);
  const failed = groups.length
    ? `; could not fetch ${groups.map(describeGroup).join("; ")}. Fix: ${groups[0].fix}`
    : "";
  if (r.error !== null) return `refresh: nothing installed, the current data keeps serving: ${r.error}${failed}`;
  return `refresh: ${r.version ? `dataset version ${r.version} installed` : "nothing changed"}${failed}`;
}
