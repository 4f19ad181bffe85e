import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { nodeModulesPackages } from "../../src/datasets/update/package-files.ts";
import { type UpdateReport, runUpdate } from "../../src/datasets/update/update.ts";
import { isDisposable } from "../../src/email/classify.ts";
import { DEFAULT_EVIDENCE_RULE } from "../../src/email/evidence-rule.ts";
import { explainEmail } from "../../src/email/explanation.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_SOURCES, makeDataDir } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// Updates on replayed days (the update's clock set), with a rolling list (a daily top list)
// and a full list beside the bundled sources: what leaves each, and for how long it counts.
setDefaultTimeout(scaled(60_000));

const dir = makeDataDir();
const feeds = mkdtempSync(join(tmpdir(), "rk-rolling-feeds-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(feeds, { recursive: true, force: true });
});
const source = (name: string, extra: object) => ({
  name,
  url: `file://${join(feeds, `${name}.txt`)}`,
  format: "domain-list",
  feeds: "disposable",
  licence: "made by the test",
  ...extra,
});
writeFileSync(
  join(dir, "sources.json"),
  JSON.stringify({
    sources: [
      ...BUNDLED_SOURCES,
      source("top-list", { kind: "rolling", retention: "30d", verifies: true }),
      source("full-list", {}),
    ],
  }),
);
const DAY = 86_400_000;
const start = Date.parse("2026-06-01T06:00:00Z");
const named = (n: string) => `${n}-rolling-test.com`;

/** One update on `day` (days after `start`), the lists holding these names (null: the files as they are). */
async function updateOn(day: number, lists: { top: string[]; full: string[] } | null): Promise<UpdateReport> {
  if (lists) {
    writeFileSync(join(feeds, "top-list.txt"), `${lists.top.map(named).join("\n")}\n`);
    writeFileSync(join(feeds, "full-list.txt"), `${lists.full.map(named).join("\n")}\n`);
  }
  return runUpdate({
    dataDir: dir,
    force: false,
    maxShrink: 0.99,
    keepVersions: 3,
    thresholds: DEFAULT_THRESHOLDS,
    env: {},
    progress: () => () => {},
    packages: nodeModulesPackages(resolve(import.meta.dir, "../../node_modules")),
    emailRule: DEFAULT_EVIDENCE_RULE,
    now: new Date(start + day * DAY),
  });
}
const served = async () => (await loadSnapshot(dir, DEFAULT_THRESHOLDS)).snapshot.email;
const memoryOf = (report: UpdateReport) => report.memory?.find((m) => m.source === "top-list");

describe("a rolling list's names across updates", async () => {
  const day0 = await updateOn(0, { top: ["a", "b", "c"], full: ["x", "y"] });
  const day10 = await updateOn(10, { top: ["b", "c", "d"], full: ["y"] });
  const day20 = await updateOn(20, { top: ["c", "d"], full: ["y"] });
  const afterDay20 = await served();
  const day35 = await updateOn(35, null);
  const afterDay35 = await served();

  test("every update installs a version", () => {
    for (const report of [day0, day10, day20, day35]) expect(report.version).not.toBeNull();
  });

  test("a name that left the rolling list stays disposable; one the full list deleted does not", () => {
    expect(isDisposable(afterDay20, named("a"))).toBe(true);
    expect(isDisposable(afterDay20, named("b"))).toBe(true);
    expect(isDisposable(afterDay20, named("x"))).toBe(false);
    expect(isDisposable(afterDay20, named("y"))).toBe(true);
  });

  test("the summary says what the list remembers, what left and what was forgotten", () => {
    expect(memoryOf(day0)).toMatchObject({ remembered: 0, left: 0, forgotten: 0, retentionSeconds: 30 * 86_400 });
    expect(memoryOf(day10)).toMatchObject({ remembered: 1, left: 1, forgotten: 0, oldest: start / 1000 });
    expect(memoryOf(day20)).toMatchObject({ remembered: 2, left: 1, forgotten: 0 });
    // a was last listed on day 0, more than 30 days before day 35; b on day 10.
    expect(memoryOf(day35)).toMatchObject({ remembered: 1, left: 0, forgotten: 1, oldest: (start + 10 * DAY) / 1000 });
  });

  test("explain says a remembered name is remembered, since when the list last carried it", () => {
    const reasons = explainEmail(afterDay20, `u@${named("b")}`, named("b"), { sources: [] });
    expect(reasons.rule).toBe("listed");
    expect(reasons.sources).toEqual([
      expect.objectContaining({
        source: "top-list",
        remembered: true,
        first_seen: new Date(start).toISOString(),
        last_seen: new Date(start + 10 * DAY).toISOString(),
      }),
    ]);
    const listed = explainEmail(afterDay20, `u@${named("d")}`, named("d"), { sources: [] });
    expect(listed.sources[0]).toMatchObject({
      remembered: false,
      first_seen: new Date(start + 10 * DAY).toISOString(),
    });
  });

  test("past its retention a name is forgotten, even when no list changed", () => {
    expect(isDisposable(afterDay35, named("a"))).toBe(false);
    expect(isDisposable(afterDay35, named("b"))).toBe(true);
    expect(isDisposable(afterDay35, named("c"))).toBe(true);
  });

  test("the memory lives in the version: its evidence file holds each remembered name's last sighting", () => {
    const file = readFileSync(join(dir, "current", "email", "evidence", "top-list.txt"), "utf8");
    const second = (day: number) => (start + day * DAY) / 1000;
    expect(file.trim().split("\n").sort()).toEqual(
      [
        `${named("b")}\t${second(0)}\t${second(10)}`,
        `${named("c")}\t${second(0)}`,
        `${named("d")}\t${second(10)}`,
      ].sort(),
    );
  });
});
