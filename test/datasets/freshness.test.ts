import { describe, expect, test } from "bun:test";
import { datasetWarnings, lastRefreshedFromNetwork } from "../../src/datasets/freshness.ts";
import type { SourceRecord } from "../../src/datasets/manifest.ts";
import type { RefreshState } from "../../src/datasets/refresh-scheduler.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const DAY = 86_400_000;

const source = (over: Partial<SourceRecord>): SourceRecord => ({
  origin: "https://example.org/list",
  url: "https://example.org/list",
  format: "address-list",
  feeds: "attack",
  licence: "test",
  fetchedAt: "2026-11-23T06:00:00.000Z",
  checkedAt: "2026-11-23T06:00:00.000Z",
  dataDate: "2026-11-23T05:00:00.000Z",
  dataDateFrom: "content",
  entries: 10,
  bytes: 100,
  raw: "x",
  cadenceMs: 2 * DAY,
  ...over,
});

function snapshot(sources: Record<string, SourceRecord>, reputationSources = Object.keys(sources)): Snapshot {
  const email = { heldBack: new Set(), overrides: new Map() };
  return {
    email,
    sources,
    outputs: { "reputation-index": { count: reputationSources.length ? 100 : 0, sources: reputationSources } },
  } as unknown as Snapshot;
}

const refreshing = (last: RefreshState["last"] = null): RefreshState => ({
  everyMs: DAY,
  running: false,
  nextAt: null,
  lastSuccessAt: null,
  last,
});

describe("what /healthz and the dashboard warn about", () => {
  test("fresh data and a working refresh: nothing", () => {
    expect(datasetWarnings(snapshot({ ipsum: source({}) }), refreshing(), NOW)).toEqual([]);
  });

  test("no reputation feed loaded", () => {
    const warnings = datasetWarnings(snapshot({}, []), refreshing(), NOW);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^no reputation feed is loaded: .*"ok" means no data rather than clean; the automatic refresh fetches the feeds$/,
      ),
    ]);
  });

  test("a source in use older than its publisher's cadence, by its data's own date", () => {
    const stale = source({ dataDate: "2026-11-10T00:00:00.000Z", fetchedAt: "2026-11-23T06:00:00.000Z" });
    expect(datasetWarnings(snapshot({ ipsum: stale }), refreshing(), NOW)).toEqual([
      "1 source in use is older than the cadence its publisher keeps: ipsum: 2026-11-10, 13 days old (cadence 2 days)",
    ]);
  });

  test("stale sources make one line, those of one date together, the oldest first", () => {
    const of = (dataDate: string, days: number) => source({ dataDate, cadenceMs: days * DAY });
    const sources = {
      a: of("2026-06-17T19:52:21.000Z", 60),
      b: of("2026-06-17T19:53:00.000Z", 60),
      c: of("2026-06-17T00:00:00.000Z", 60),
      d: of("2024-12-07T08:23:11.000Z", 180),
      e: of("2026-09-21T08:30:21.000Z", 60),
    };
    expect(datasetWarnings(snapshot(sources), refreshing(), NOW)).toEqual([
      "5 sources in use are older than the cadence their publishers keep: d: 2024-12-07, 716 days old (cadence 180 days); a, b, c: 2026-06-17, 159 days old (cadence 60 days); e: 2026-09-21, 63 days old (cadence 60 days)",
    ]);
  });

  test("no warning for a source without a cadence, or one no output uses", () => {
    const old = source({ dataDate: "2024-01-01T00:00:00.000Z" });
    expect(
      datasetWarnings(
        snapshot({ pinned: { ...old, cadenceMs: null }, superseded: old, ipsum: source({}) }, ["ipsum", "pinned"]),
        refreshing(),
        NOW,
      ),
    ).toEqual([]);
  });

  test("a refresh that installed nothing, and sources it could not fetch", () => {
    const warnings = datasetWarnings(
      snapshot({ ipsum: source({}) }),
      refreshing({
        finishedAt: NOW - 60_000,
        version: null,
        error: "refused: reputation-index would shrink from 184172 to 86062",
        failedSources: [{ name: "bingbot", detail: "HTTP 404" }],
      }),
      NOW,
    );
    expect(warnings).toEqual([
      "the last refresh (2026-11-23T11:59:00.000Z) installed nothing: refused: reputation-index would shrink from 184172 to 86062",
      "the last refresh could not fetch 1 source (bingbot; it keeps the data it had): the server answered HTTP 404; the publisher refused or failed: try again later, or leave the source out of --sources",
    ]);
  });

  test("a fresh install offline: one line per kind of problem, with counts, never one per source", () => {
    const offline = Array.from({ length: 29 }, (_, i) => ({
      name: `feed-${i}`,
      detail: `getaddrinfo ENOTFOUND host-${i % 4}.example`,
      keeps: null,
    }));
    const refused = [{ name: "bingbot", detail: "HTTP 503 Service Unavailable", keeps: "2026-11-20" }];
    const warnings = datasetWarnings(
      snapshot({}, []),
      refreshing({
        finishedAt: NOW - 60_000,
        version: null,
        error: "no source could be reached (30 failed)",
        failedSources: [...offline, ...refused],
      }),
      NOW,
    );
    expect(warnings).toEqual([
      expect.stringMatching(/^no reputation feed is loaded: /),
      "the last refresh (2026-11-23T11:59:00.000Z) installed nothing: no source could be reached (30 failed)",
      expect.stringMatching(
        /^the last refresh could not fetch 29 sources \(feed-0, feed-1 and 27 more; none has data yet\): the host name could not be resolved \(no network, or no DNS\); check this machine's network and DNS; behind a proxy, set HTTPS_PROXY/,
      ),
      "the last refresh could not fetch 1 source (bingbot; it keeps the data it had): the server answered HTTP 503; the publisher refused or failed: try again later, or leave the source out of --sources",
    ]);
    // Nothing says a source keeps data it does not have.
    expect(warnings.join("\n")).not.toMatch(/keeps? (its|their) data.*no data yet/);
  });

  test("refresh off, data never refreshed from the network", () => {
    const bundled = source({ url: "npm:disposable-email-domains/index.json", cadenceMs: null });
    expect(lastRefreshedFromNetwork({ bundled })).toBeNull();
    expect(datasetWarnings(snapshot({ bundled }), null, NOW)).toContainEqual(
      expect.stringContaining("automatic refresh is off (RISKCHECK_UPDATE_EVERY=off)"),
    );
    expect(lastRefreshedFromNetwork({ bundled, ipsum: source({}) })).toBe(Date.parse("2026-11-23T06:00:00.000Z"));
  });
});

describe("sources grouped by the kind of problem", () => {
  test("a refusal keeps its particular reason; two different refusals are two lines", () => {
    const warnings = datasetWarnings(
      snapshot({ ipsum: source({}) }),
      refreshing({
        finishedAt: NOW - 60_000,
        version: "v2",
        error: null,
        failedSources: [
          { name: "googlebot", detail: "refused: has no prefixes", keeps: null },
          { name: "bingbot", detail: "refused: looks like an HTML page", keeps: "2026-11-20" },
        ],
      }),
      NOW,
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the last refresh could not fetch 1 source \(googlebot; it has no data yet\): the download was refused: has no prefixes; /,
      ),
      expect.stringMatching(
        /^the last refresh could not fetch 1 source \(bingbot; it keeps the data it had\): the download was refused: looks like an HTML page; /,
      ),
    ]);
  });

  test("the commands they name are the ones given, as the program was run", () => {
    const commands = {
      update: "/opt/rc/riskcheck update --data-dir /srv/rc",
      settle: '/opt/rc/riskcheck email deny NAME --reason "why" --data-dir /srv/rc',
      refreshOffBy: "--update-every off",
    };
    const bundled = source({ url: "npm:x", checkedAt: "2026-11-20T00:00:00.000Z" });
    const warnings = datasetWarnings(snapshot({ bundled }, []), null, NOW, commands);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^no reputation feed is loaded: .*; run: \/opt\/rc\/riskcheck update --data-dir \/srv\/rc$/,
      ),
    );
    expect(warnings).toContainEqual(
      "automatic refresh is off (--update-every off) and the data has never been refreshed from the network; run: /opt/rc/riskcheck update --data-dir /srv/rc",
    );
  });
});
