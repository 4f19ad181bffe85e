import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRegionTable, placeChecks } from "../../src/datasets/cloud-region-table.ts";
import { loadCuratedData } from "../../src/datasets/curated-data.ts";
import { dataFiles } from "../../src/datasets/data-layout.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";

const HEADER = "key,country,subdivision,subdivision_name,city,latitude,longitude,time_zone,source";
const CHECKS = await placeChecks();
const table = (...rows: string[]) =>
  parseRegionTable(`# a table\n${HEADER}\n${rows.join("\n")}\n`, "regions.csv", CHECKS);

describe("the cloud-region table", () => {
  test("the shipped table reads, and places the regions the issue's users see answered as US", () => {
    const regions = parseRegionTable(
      readFileSync(join(BUNDLED_DATA_DIR, "curated", "cloud-regions.csv"), "utf8"),
      "cloud-regions.csv",
      CHECKS,
    );
    expect(regions.size).toBeGreaterThan(200);
    expect(regions.get("aws:eu-central-1")).toEqual({
      country: "Germany",
      country_code: "DE",
      region: "HE",
      region_name: "Hesse",
      city: "Frankfurt am Main",
      subdivisions: "",
      zip: "",
      latitude: 50.11,
      longitude: 8.68,
      timezone: "Europe/Berlin",
    });
    // A Local Zone is placed in its metro, not its parent region's country.
    expect(regions.get("aws:us-east-1-bue-1")?.country_code).toBe("AR");
    for (const [name, country] of [
      ["gcp:europe-west1", "BE"],
      ["gcp:europe-west2", "GB"],
      ["gcp:europe-southwest1", "ES"],
      ["aws:af-south-1", "ZA"],
      ["aws:ap-northeast-2", "KR"],
      ["oracle:eu-stockholm-1", "SE"],
    ]) {
      expect(regions.get(name)?.country_code).toBe(country);
    }
  });
  test("a region whose provider names only the country gives the country alone", () => {
    expect(table("aws:us-south-1,US,,,,,,,aws-regions").get("aws:us-south-1")).toMatchObject({
      country_code: "US",
      region: "",
      region_name: "",
      city: "",
      latitude: 0,
      longitude: 0,
      timezone: "",
    });
  });
  test("a time zone given by an alias of its canonical name is a time zone", () => {
    expect(Intl.supportedValuesOf("timeZone")).not.toContain("Asia/Calcutta");
    expect(table("aws:x,IN,,,Mumbai,19,72,Asia/Calcutta,s").get("aws:x")?.timezone).toBe("Asia/Calcutta");
  });
  test.each([
    ["aws:x,XX,,,,,,,s", 'regions.csv:3: "XX" is not an ISO 3166-1 alpha-2 country code'],
    ["aws:x,DE,FR-IDF,Île-de-France,Paris,1,2,Europe/Paris,s", '"FR-IDF" is not an ISO 3166-2 subdivision of DE'],
    ["aws:x,DE,DE-HE,,Frankfurt,1,2,Europe/Berlin,s", "a subdivision needs its code and its name, or neither"],
    ["aws:x,DE,,,Frankfurt,91,2,Europe/Berlin,s", "91,2 are not coordinates"],
    ["aws:x,DE,,,Frankfurt,50,,Europe/Berlin,s", "a latitude and a longitude, or neither"],
    ["aws:x,DE,,,Frankfurt,50,8,Europe/Frankfurt,s", '"Europe/Frankfurt" is not an IANA time zone'],
    ["aws:x,DE,,,Frankfurt,50,8,Europe/Berlin,", "names no source"],
    ["aws:x,DE,,,Frankfurt,50,8", "has 7 fields, not the header's 9"],
    ["eu-central-1,DE,,,,,,,s", '"eu-central-1" is not a region name such as aws:eu-central-1'],
  ])("a row that cannot be right is named with its line: %s", (row, message) => {
    expect(() => table(row)).toThrow(message);
  });
  test("a region listed twice, or a table without its header, is refused", () => {
    expect(() => table("aws:x,DE,,,,,,,s", "aws:x,FR,,,,,,,s")).toThrow("regions.csv:4: aws:x is listed twice");
    expect(() => parseRegionTable("aws:x,DE,,,,,,,s\n", "regions.csv", CHECKS)).toThrow(
      "regions.csv:1: the header is not",
    );
    expect(() => parseRegionTable("# only comments\n", "regions.csv", CHECKS)).toThrow(
      "regions.csv: has no header line",
    );
  });
});

describe("a table checked once", () => {
  test("is not checked against the ISO list again while it is unchanged; an edited one is, at the next load", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-regions-"));
    try {
      cpSync(join(BUNDLED_DATA_DIR, "curated"), join(dir, "curated"), { recursive: true });
      const file = join(dir, "curated", "cloud-regions.csv");
      expect((await loadCuratedData(dataFiles(dir))).regions.get("aws:eu-central-1")?.region).toBe("HE");
      expect(readFileSync(join(dir, "datasets", ".checked-files.json"), "utf8")).toContain('"places:');
      // Unchanged, it loads as before, without the ISO list.
      expect((await loadCuratedData(dataFiles(dir))).regions.get("aws:eu-central-1")?.region).toBe("HE");
      writeFileSync(file, readFileSync(file, "utf8").replace("DE,DE-HE,", "DE,DE-ZZZ,"));
      await expect(loadCuratedData(dataFiles(dir))).rejects.toThrow('"DE-ZZZ" is not an ISO 3166-2 subdivision of DE');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a table whose rows passed needs neither list to be read again", () => {
    const rows = `${HEADER}\naws:x,DE,DE-HE,Hesse,Frankfurt,50.11,8.68,Europe/Berlin,s\n`;
    expect(parseRegionTable(rows, "regions.csv", null)).toEqual(parseRegionTable(rows, "regions.csv", CHECKS));
  });
});

describe("a data directory from before the table", () => {
  test("loads without it: no regions, so the city database locates the cloud ranges", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rk-regions-"));
    try {
      cpSync(join(BUNDLED_DATA_DIR, "curated"), join(dir, "curated"), { recursive: true });
      rmSync(join(dir, "curated", "cloud-regions.csv"));
      const curated = await loadCuratedData(dataFiles(dir));
      expect(curated.regions.size).toBe(0);
      expect(curated.datasets.map((d) => d.name)).not.toContain("curated/cloud-regions.csv");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
