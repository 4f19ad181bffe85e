import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/app/config.ts";
import { SERVER_SETTINGS } from "../../src/app/server-settings.ts";
import { settingsOf } from "../../src/app/setting.ts";
import { UsageError } from "../../src/app/usage-error.ts";
import { COMMAND_SPECS } from "../../src/cli/dispatch.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";

const ALL = settingsOf(SERVER_SETTINGS);

/** The configuration and the warnings loading it printed. */
function load(env: Record<string, string>, flags: Record<string, string> = {}) {
  const warnings: string[] = [];
  const config = loadConfig(flags, env, (line) => warnings.push(line));
  return { config, warnings };
}

describe("the table", () => {
  test("each variable and each flag belongs to one setting", () => {
    const variables = ALL.map((s) => s.variable);
    const flags = ALL.flatMap((s) => (s.flag ? [s.flag.name] : []));
    expect(new Set(variables).size).toBe(variables.length);
    expect(new Set(flags).size).toBe(flags.length);
  });

  test("each default reads as its own setting's text", () => {
    for (const s of ALL) if (s.default !== null) expect(() => s.read(s.default!, s.variable)).not.toThrow();
    expect(load({}).config.port).toBe(8080);
    expect(load({}).config.reports.windowMs).toBe(90 * 86_400_000);
  });

  test("every setting shows in the help of a command that reads it, its flag on the commands that take it", () => {
    for (const s of ALL) {
      const readers = COMMAND_SPECS.filter((c) =>
        s.flag ? c.flags.some((f) => f.env === s.variable) : c.environment?.some((v) => v.name === s.variable),
      );
      expect({ variable: s.variable, readers: readers.length > 0 }).toEqual({ variable: s.variable, readers: true });
      if (s.readBy) expect(readers.map((c) => c.name)).toEqual([...s.readBy]);
    }
  });

  test("a flag wins over its variable; an empty text is not given", () => {
    expect(load({ RISKCHECK_PORT: "9000" }, { port: "9001" }).config.port).toBe(9001);
    expect(load({ RISKCHECK_PORT: "9000" }).config.port).toBe(9000);
    expect(load({ RISKCHECK_PORT: "" }).config.port).toBe(8080);
    expect(load({ RISKCHECK_DATA_DIR: "/srv/data" }).config.dbPath).toBe("/srv/data/riskcheck.sqlite");
    expect(load({ RISKCHECK_DATA_DIR: "/srv/data" }).config.sourcesFile).toBe("/srv/data/sources.json");
  });

  test("where a setting came from, as the user wrote it", () => {
    expect(load({ RISKCHECK_UPDATE_EVERY: "off" }).config.updateEverySetBy).toBe("RISKCHECK_UPDATE_EVERY=off");
    expect(load({}, { "update-every": "off" }).config.updateEverySetBy).toBe("--update-every off");
    expect(load({}).config.updateEverySetBy).toBeNull();
  });

  test("two databases are refused", () => {
    expect(() => load({ RISKCHECK_DB: "/tmp/a.sqlite", RISKCHECK_DATABASE_URL: "postgres://db.internal/r" })).toThrow(
      "name two databases",
    );
  });
});

describe("RISKCHECK_LEVEL_SUMS", () => {
  test("defaults to the reputation model's thresholds", () => {
    expect(load({}).config.thresholds).toEqual(DEFAULT_THRESHOLDS);
  });

  test("a level left out keeps its default", () => {
    expect(load({ RISKCHECK_LEVEL_SUMS: "warning=4, bad=8" }).config.thresholds).toEqual({
      ...DEFAULT_THRESHOLDS,
      warning: 4,
      bad: 8,
    });
  });

  test.each([
    ["bad", "not LEVEL=N"],
    ["fatal=3", "not LEVEL=N with LEVEL one of informative, suspicious, warning, bad"],
    ["bad=x", "not LEVEL=N"],
    ["informative=0", "informative must be at least 1"],
    ["warning=7", "must rise from informative to bad, got informative 1, suspicious 2, warning 7, bad 6"],
  ])("%s is refused", (text, message) => {
    expect(() => load({ RISKCHECK_LEVEL_SUMS: text })).toThrow(UsageError);
    expect(() => load({ RISKCHECK_LEVEL_SUMS: text })).toThrow(message);
  });

  test("the four former variables still work, with one warning naming what to set instead", () => {
    const { config, warnings } = load({ RISKCHECK_LEVEL_BAD_SUM: "9", RISKCHECK_LEVEL_WARNING_SUM: "5" });
    expect(config.thresholds).toEqual({ ...DEFAULT_THRESHOLDS, warning: 5, bad: 9 });
    expect(warnings).toEqual([
      "RISKCHECK_LEVEL_BAD_SUM, RISKCHECK_LEVEL_WARNING_SUM are replaced by RISKCHECK_LEVEL_SUMS, and still read " +
        "for now: set RISKCHECK_LEVEL_SUMS=bad=9,warning=5 instead",
    ]);
    expect(load({ RISKCHECK_LEVEL_INFORMATIVE_SUM: "2" }).config.thresholds.informative).toBe(2);
    expect(load({ RISKCHECK_LEVEL_SUSPICIOUS_SUM: "3" }).config.thresholds.suspicious).toBe(3);
  });

  test("the new setting wins for a level both name; a former one's bad value is refused", () => {
    const { config } = load({ RISKCHECK_LEVEL_BAD_SUM: "9", RISKCHECK_LEVEL_SUMS: "bad=7" });
    expect(config.thresholds.bad).toBe(7);
    expect(() => load({ RISKCHECK_LEVEL_BAD_SUM: "many" })).toThrow('"bad=many" is not LEVEL=N');
    expect(() => load({ RISKCHECK_LEVEL_BAD_SUM: "1" })).toThrow("must rise from informative to bad");
  });

  test("no warning without a former variable", () => {
    expect(load({ RISKCHECK_LEVEL_SUMS: "bad=7" }).warnings).toEqual([]);
  });
});
