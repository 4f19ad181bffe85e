import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUNDLED_SOURCES, makeDataDir, runCliAsync } from "./support/processes.ts";
import { BUNDLED_DATA_DIR } from "./support/bundled-data.ts";
import { scaled } from "./support/slowness.ts";

// update's checks on a data directory of its own each, apart from test/update.test.ts's feed server
// and serve (a file of their own: the runner gives them another worker). Each runs update on the bundled data.
setDefaultTimeout(scaled(120_000));

const sourcesWith = (extra: object[]) => JSON.stringify({ sources: [...BUNDLED_SOURCES, ...extra] });

describe("staging never writes through to the current version", () => {
  test("a version that fails to load is not installed, and the current one is untouched", async () => {
    const dir = makeDataDir();
    const before = readlinkSync(join(dir, "current"));
    const manifest = join(dir, before, "manifest.json");
    const text = readFileSync(manifest, "utf8");
    const feed = join(dir, "feed.txt");
    writeFileSync(feed, "81.2.69.142\n");
    writeFileSync(
      join(dir, "sources.json"),
      sourcesWith([{ name: "f", url: `file://${feed}`, format: "address-list", feeds: "attack", licence: "test" }]),
    );
    // A curated file that no longer parses makes the staged version fail to load.
    rmSync(join(dir, "curated"));
    cpSync(join(BUNDLED_DATA_DIR, "curated"), join(dir, "curated"), { recursive: true, dereference: true });
    writeFileSync(join(dir, "curated", "vpn-asns.txt"), "not an AS\n");
    const run = await runCliAsync(["update", "--data-dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the new dataset version was not installed");
    expect(readFileSync(manifest, "utf8")).toBe(text);
    expect(readlinkSync(join(dir, "current"))).toBe(before);
    // No staging folder is left: only the version before, the lock, the record of checked files and the compiled ranges.
    const kept = readdirSync(join(dir, "datasets")).filter(
      (name) => !name.startsWith(".update-lock") && name !== ".checked-files.json" && name !== ".curated-ranges.idx",
    );
    expect(kept).toEqual([before.replace("datasets/", "")]);
  });
});

describe("update's start-up failures name the path and the setting to change", () => {
  test("a directory riskcheck did not make, or a sources path that is a directory", async () => {
    const foreign = join(makeDataDir(), "email");
    const run = await runCliAsync(["update", "--data-dir", foreign]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toStartWith(
      `riskcheck: ${foreign} is not a riskcheck data directory (it has none of sources.json, datasets, current, riskcheck.sqlite); nothing was written there.`,
    );
    const json = await runCliAsync(["update", "--data-dir", foreign, "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toStartWith(`${foreign} is not a riskcheck data directory`);
    const dir = makeDataDir();
    const directory = await runCliAsync(["update", "--data-dir", dir, "--sources", dir]);
    expect(directory.code).toBe(1);
    expect(directory.stderr.trim()).toBe(
      `riskcheck: ${dir}: cannot read the sources file (a directory, not a file); point --sources / RISKCHECK_SOURCES at a sources file`,
    );
  });
});

describe("the free set is guarded as it is served", () => {
  test("a disposable list that carries the free providers is refused, though every compiled list grows", async () => {
    const dir = makeDataDir();
    const before = readlinkSync(join(dir, "current"));
    // A slip in sources.json: the free-provider list declared as a disposable list. Every
    // gmail.com, yahoo.com … would turn disposable; no compiled list shrinks.
    writeFileSync(
      join(dir, "sources.json"),
      sourcesWith([
        {
          name: "wrong",
          url: "npm:email-providers/all.json",
          format: "domain-list",
          feeds: "disposable",
          licence: "ISC",
        },
      ]),
    );
    const run = await runCliAsync(["update", "--data-dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused: free-domains as served would shrink from \d{4} to \d{1,3} \(.*\); its sources: wrong \(added, \d+ entries\)/,
    );
    expect(readlinkSync(join(dir, "current"))).toBe(before);
    expect((await runCliAsync(["update", "--data-dir", dir, "--force"])).code).toBe(0);
    expect(readlinkSync(join(dir, "current"))).not.toBe(before);
  });
});

describe("the allowlists are guarded against un-flagging the disposable lists", () => {
  test("a block list declared as an allowlist is refused, though no output shrinks", async () => {
    const dir = makeDataDir();
    const before = readlinkSync(join(dir, "current"));
    // The maintained block list at the allowlist's place: 8,883 names would stop being disposable.
    writeFileSync(
      join(dir, "sources.json"),
      sourcesWith([
        {
          name: "wrong-allow",
          url: "npm:disposable-email-domains-js/dist/dict/disposable_email_blocklist.json",
          format: "domain-list",
          feeds: "allow",
          licence: "CC0",
        },
      ]),
    );
    const run = await runCliAsync(["update", "--data-dir", dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused: the allowlists would un-flag \d{4} of the \d{6} disposable names \(\d+ %, more than 1 %\); their sources: wrong-allow, the operator's allowlist/,
    );
    expect(readlinkSync(join(dir, "current"))).toBe(before);
    expect((await runCliAsync(["update", "--data-dir", dir, "--force"])).code).toBe(0);
    expect(readlinkSync(join(dir, "current"))).not.toBe(before);
  });
});
