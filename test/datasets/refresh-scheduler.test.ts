import { describe, expect, test } from "bun:test";
import { type RefreshResult, RefreshScheduler } from "../../src/datasets/refresh-scheduler.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A clock and timers the test moves by hand. */
function harness(options: { everyMs: number; lastRefreshedAt: number | null; results?: Partial<RefreshResult>[] }) {
  let now = Date.UTC(2026, 10, 23, 12);
  const timers = new Map<number, { at: number; run: () => void }>();
  let nextId = 1;
  const runs: number[] = [];
  const log: string[] = [];
  const results = [...(options.results ?? [])];
  const scheduler = new RefreshScheduler({
    everyMs: options.everyMs,
    lastRefreshedAt: options.lastRefreshedAt === null ? null : now - options.lastRefreshedAt,
    run: async () => {
      runs.push(now);
      return { finishedAt: now, version: null, error: null, failedSources: [], ...results.shift() };
    },
    now: () => now,
    random: () => 0.5,
    timers: {
      set: (run, ms) => (timers.set(nextId, { at: now + ms, run }), nextId++),
      clear: (id) => void timers.delete(id as number),
    },
    log: (line) => void log.push(line),
  });
  /** Moves the clock to the next timer and fires it. */
  const fire = async () => {
    const [id, timer] = [...timers].sort((a, b) => a[1].at - b[1].at)[0];
    timers.delete(id);
    now = timer.at;
    timer.run();
    await Bun.sleep(0);
  };
  return { scheduler, runs, log, fire, clock: () => now, pending: () => timers.size };
}

describe("when the automatic refresh runs", () => {
  test("data never refreshed from the network: within a minute of start", async () => {
    const h = harness({ everyMs: DAY, lastRefreshedAt: null });
    const started = h.clock();
    h.scheduler.start();
    await h.fire();
    expect(h.runs[0] - started).toBe(45_000);
  });

  test("data refreshed an hour ago: a period after that refresh, give or take jitter", async () => {
    const h = harness({ everyMs: DAY, lastRefreshedAt: HOUR });
    const started = h.clock();
    h.scheduler.start();
    await h.fire();
    expect(h.runs[0] - started).toBe(DAY - HOUR + 0.5 * 30 * 60_000);
  });

  test("data older than a period: within a minute", async () => {
    const h = harness({ everyMs: DAY, lastRefreshedAt: 3 * DAY });
    const started = h.clock();
    h.scheduler.start();
    await h.fire();
    expect(h.runs[0] - started).toBeLessThanOrEqual(60_000);
  });

  test("a short period wins over the minute", async () => {
    const h = harness({ everyMs: 2_000, lastRefreshedAt: null });
    const started = h.clock();
    h.scheduler.start();
    await h.fire();
    expect(h.runs[0] - started).toBe(2_000);
  });

  test("after a refresh, the next one a period later; after one that installed nothing, an hour later plus jitter", async () => {
    const h = harness({
      everyMs: DAY,
      lastRefreshedAt: null,
      results: [{ version: "v1" }, { error: "refused: reputation-index would shrink" }, {}],
    });
    h.scheduler.start();
    await h.fire();
    await h.fire();
    await h.fire();
    expect(h.runs[1] - h.runs[0]).toBe(DAY + 0.5 * 30 * 60_000);
    expect(h.runs[2] - h.runs[1]).toBe(HOUR + 0.5 * 30 * 60_000);
    expect(h.log).toEqual([
      "refresh: dataset version v1 installed",
      "refresh: nothing installed, the current data keeps serving: refused: reputation-index would shrink",
      "refresh: nothing changed",
    ]);
  });

  test("its state tells the last success, the last outcome and the next run", async () => {
    const h = harness({
      everyMs: DAY,
      lastRefreshedAt: null,
      results: [{ version: "v1", failedSources: [{ name: "bingbot", detail: "HTTP 404" }] }],
    });
    h.scheduler.start();
    expect(h.scheduler.state()).toMatchObject({ running: false, lastSuccessAt: null, last: null });
    await h.fire();
    const state = h.scheduler.state();
    expect(state.lastSuccessAt).toBe(h.runs[0]);
    expect(state.last?.failedSources).toEqual([{ name: "bingbot", detail: "HTTP 404" }]);
    expect(state.nextAt).toBe(h.runs[0] + DAY + 0.5 * 30 * 60_000);
    expect(h.log[0]).toBe(
      "refresh: dataset version v1 installed; could not fetch 1 source (bingbot; it keeps the data it had): the server answered HTTP 404. Fix: the publisher refused or failed: try again later, or leave the source out of --sources",
    );
  });

  test("a first refresh offline logs one short line: the sources grouped by why, none said to keep data it does not have", async () => {
    const failedSources = [
      ...Array.from({ length: 29 }, (_, i) => ({
        name: `feed-${i}`,
        detail: "getaddrinfo ENOTFOUND raw.githubusercontent.com",
        keeps: null,
      })),
      { name: "maxmind", detail: "needs MAXMIND_LICENSE_KEY in the environment", keeps: null },
    ];
    const h = harness({
      everyMs: DAY,
      lastRefreshedAt: null,
      results: [{ error: "no source could be reached (30 failed)", failedSources }],
    });
    h.scheduler.start();
    await h.fire();
    expect(h.log).toEqual([
      "refresh: nothing installed, the current data keeps serving: no source could be reached (30 failed); could not fetch 29 sources (feed-0, feed-1 and 27 more; none has data yet): the host name could not be resolved (no network, or no DNS); 1 source (maxmind; it has no data yet): needs MAXMIND_LICENSE_KEY in the environment. Fix: check this machine's network and DNS; behind a proxy, set HTTPS_PROXY (and HTTP_PROXY); to use only the bundled data, set RISKCHECK_UPDATE_EVERY=off or give --sources a file without network sources",
    ]);
    expect(h.log[0].length).toBeLessThan(700);
  });

  test("a refresh that throws is logged and retried", async () => {
    const h = harness({ everyMs: DAY, lastRefreshedAt: null });
    (h.scheduler as unknown as { o: { run: () => Promise<RefreshResult> } }).o.run = async () => {
      throw new Error("spawn failed");
    };
    h.scheduler.start();
    await h.fire();
    expect(h.log).toEqual(["refresh: nothing installed, the current data keeps serving: spawn failed"]);
    expect(h.pending()).toBe(1);
  });

  test("stop cancels the next refresh", () => {
    const h = harness({ everyMs: DAY, lastRefreshedAt: null });
    h.scheduler.start();
    h.scheduler.stop();
    expect(h.pending()).toBe(0);
    expect(h.scheduler.state().nextAt).toBeNull();
  });
});
