import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { datasetWarnings } from "../../src/datasets/freshness.ts";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { UpdateChild } from "../../src/datasets/refresh-child.ts";
import { openApiJson } from "../../src/http/openapi-document.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { ipAnswerJson, privateAnswer } from "../../src/ip/answer/ip-answer.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import {
  AWS_IP_RANGES,
  GOOGLE_ACTION_NEEDED,
  ICLOUD_EGRESS,
  OPENAI_GPTBOT,
} from "../fixtures/infrastructure/publishers.ts";
import { BUNDLED_SOURCES, CLI, makeDataDir, runCliAsync } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// A real update in a child process, as operators run it.
setDefaultTimeout(scaled(60_000));

const feeds = mkdtempSync(join(tmpdir(), "riskcheck-benign-"));
const file = (name: string, text: string) => {
  writeFileSync(join(feeds, name), text);
  return `file://${join(feeds, name)}`;
};
// Seven lists' worth of reports (ipsum's count) on a crawler, a relay exit and a cloud address.
const REPORTED = ["74.7.244.10", "104.28.28.5", "2a02:26f7:b3c0:4000::5", "35.180.1.1"];
const SOURCES = [
  {
    name: "reports",
    url: file("reports.txt", `${REPORTED.map((ip) => `${ip}\t7`).join("\n")}\n35.180.2.2\t3\n`),
    format: "address-list",
    feeds: "attack",
    licence: "test",
  },
  {
    name: "openai-gptbot",
    url: file("gptbot.json", OPENAI_GPTBOT),
    format: "prefix-json",
    feeds: "verified-crawler",
    class: "seo:openai",
    licence: "OpenAI",
  },
  {
    name: "aws",
    url: file("ip-ranges.json", AWS_IP_RANGES),
    format: "aws-ip-ranges",
    feeds: "hosting",
    class: "cloud:aws",
    licence: "AWS",
  },
  {
    name: "icloud-private-relay",
    url: file("egress.csv", `${ICLOUD_EGRESS}10.0.0.0/16,US,US-CA,Los Angeles,\n`),
    format: "geofeed-csv",
    feeds: "relay",
    class: "relay:icloud",
    licence: "Apple",
  },
  // Google's old address, answering 200 with "Action needed" and no prefixes.
  {
    name: "googlebot",
    url: file("googlebot.json", GOOGLE_ACTION_NEEDED),
    format: "prefix-json",
    feeds: "verified-crawler",
    class: "seo:googlebot",
    licence: "Google",
  },
];
const dataDir = makeDataDir();
writeFileSync(join(dataDir, "sources.json"), JSON.stringify({ sources: [...BUNDLED_SOURCES, ...SOURCES] }));
const run = await runCliAsync(["update", "--data-dir", dataDir]);
const { snapshot } = await loadSnapshot(dataDir, DEFAULT_THRESHOLDS);

afterAll(() => {
  rmSync(feeds, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const answer = (ip: string, explain = false) =>
  JSON.parse(ipAnswerJson(snapshot.ip, parseIpAddress(ip)!, explain ? snapshot.sources : null));

describe("the update with crawler, cloud and relay sources", () => {
  test("installs what it could and names the crawler file that stopped carrying prefixes", () => {
    expect(run.code).toBe(1);
    const line = run.stdout.split("\n").find((l) => l.startsWith("googlebot"));
    expect(line).toContain("failed");
    expect(line).toContain("refused: has no prefixes, though it parses: a file its publisher moved or retired");
    expect(snapshot.outputs["reputation-index"].sources).toEqual(
      expect.arrayContaining(["openai-gptbot", "aws", "icloud-private-relay"]),
    );
    expect(snapshot.outputs["infrastructure-labels"].sources).toEqual(["aws"]);
    expect(snapshot.outputs["declared-locations"].sources).toEqual(["aws", "icloud-private-relay"]);
  });
  test("the refused file's first bytes go to the log, not to the summary", () => {
    expect(run.stderr).toContain("update: googlebot: refused download (");
    expect(run.stderr).toContain("Action needed");
    expect(run.stdout).not.toContain("Action needed");
  });
  test("/healthz's warnings after a refresh name the source, without what it answered", async () => {
    const child = new UpdateChild([process.execPath, CLI], ["--data-dir", dataDir], { ...process.env }, () =>
      Date.now(),
    );
    const last = await child.run();
    const warnings = datasetWarnings(
      snapshot,
      { everyMs: 86_400_000, running: false, nextAt: null, lastSuccessAt: null, last },
      Date.now(),
    );
    const warning = warnings.find((w) => w.includes("googlebot"));
    expect(warning).toContain("has no prefixes");
    expect(warnings.join("\n")).not.toContain("Action needed");
    expect(warnings.join("\n")).not.toContain("update the location");
  });
});

describe("crawlers and relays cap at suspicious; clouds only label", () => {
  test("a verified crawler's address with 7 reports is suspicious, and explain names the class and the cap", () => {
    const { reputation } = answer("74.7.244.10", true);
    expect(reputation).toMatchObject({
      risky: false,
      reputation: "suspicious",
      attack: 7,
      sum: 7,
      kind: ["hosting", "crawler"],
    });
    expect(reputation.reasons.rule).toMatchObject({
      id: "benign-cap",
      capped: { from: "bad", by: "verified-crawler" },
    });
    expect(reputation.reasons.contributions).toContainEqual(
      expect.objectContaining({ source: "openai-gptbot", category: "verified-crawler", class: "seo:openai" }),
    );
    expect(reputation.reasons.infrastructure).toEqual([
      { class: "seo:openai", source: "openai-gptbot", effect: "cap" },
    ]);
  });
  test.each(["104.28.28.5", "2a02:26f7:b3c0:4000::5"])(
    "a privacy relay's exit %s with 7 reports is suspicious, capped by the relay",
    (ip) => {
      const { reputation } = answer(ip, true);
      expect(reputation).toMatchObject({ risky: false, reputation: "suspicious", sum: 7 });
      expect(reputation.reasons.rule).toMatchObject({ id: "benign-cap", capped: { from: "bad", by: "relay" } });
      expect(reputation.reasons.infrastructure[0]).toMatchObject({
        class: "relay:icloud",
        source: "icloud-private-relay",
        effect: "cap",
      });
    },
  );
  test("a cloud address with 7 reports stays bad and gains the label; with 3, warning; with none, informative hosting", () => {
    const bad = answer("35.180.1.1", true).reputation;
    expect(bad).toMatchObject({ risky: true, reputation: "bad", kind: ["hosting"] });
    expect(bad.reasons.rule.id).toBe("reports>=bad");
    expect(bad.reasons.infrastructure).toEqual([
      { class: "cloud:aws", source: "aws", effect: "label", label: "AWS eu-west-3 EC2" },
    ]);
    expect(bad.reasons.contributions).toContainEqual(
      expect.objectContaining({ source: "aws", category: "hosting", class: "cloud:aws", label: "AWS eu-west-3 EC2" }),
    );
    expect(answer("35.180.2.2").reputation).toMatchObject({ risky: true, reputation: "warning" });
    expect(answer("35.180.3.3").reputation).toMatchObject({
      risky: false,
      reputation: "informative",
      sum: 0,
      kind: ["hosting"],
    });
  });
});

describe("the OpenAPI document describes these explanations", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(openApiJson()).components.schemas.ReputationReasons);
  test.each(["74.7.244.10", "104.28.28.5", "35.180.1.1"])("reputation.reasons of %s validates", (ip) => {
    const { reasons } = answer(ip, true).reputation;
    expect(reasons.infrastructure.length).toBeGreaterThan(0);
    expect({ valid: validate(reasons), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
  });
});

describe("a relay exit's place comes from its geofeed row", () => {
  test("country, region and city from the row; nothing the row does not say is taken from a database that disagrees", () => {
    expect(answer("104.28.28.5")).toMatchObject({
      country: "United Kingdom",
      country_code: "GB",
      flag: "🇬🇧",
      region: "ENG",
      region_name: "England",
      city: "London",
      subdivisions: "",
      zip: "",
      latitude: 0,
      longitude: 0,
    });
    expect(answer("104.28.28.66")).toMatchObject({
      country_code: "US",
      region: "CA",
      region_name: "California",
      city: "Los Angeles",
    });
    expect(answer("104.28.28.73")).toMatchObject({ country: "Germany", country_code: "DE", region: "", city: "" });
    expect(answer("2a02:26f7:b3c0:4000::5")).toMatchObject({ country_code: "FR", region: "IDF", city: "Paris" });
    expect(answer("104.28.28.5", true).reputation.reasons.infrastructure[0].place).toEqual({
      country: "GB",
      region: "GB-ENG",
      city: "London",
    });
  });
  test("without explain the body is exactly the spec's fields", () => {
    const body = answer("104.28.28.5");
    expect(Object.keys(body)).toEqual(
      Object.keys({ ...privateAnswer("x"), flag: "" }).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)),
    );
    expect(Object.keys(body.reputation)).toEqual([
      "risky",
      "reputation",
      "bot",
      "probe",
      "rate",
      "attack",
      "crawler",
      "sum",
      "kind",
    ]);
  });
  test("no list speaks for private space: the geofeed's 10.0.0.0/16 row was refused, and the summary names it", () => {
    const placeOf = (ip: string) => snapshot.ip.locations.placeAt(snapshot.ip.locations.entryOf(parseIpAddress(ip)!));
    expect(placeOf("10.0.1.1")).toBeNull();
    expect(placeOf("104.28.28.5")).toMatchObject({ city: "London", source: "icloud-private-relay" });
    expect(run.stdout).toContain("refused 1 row: line 5 (10.0.0.0/16: private or special-purpose space)");
  });
});

const ORDER = [
  "ip",
  "country",
  "country_code",
  "flag",
  "region",
  "region_name",
  "city",
  "subdivisions",
  "connection_type",
  "is_anycast",
  "zip",
  "latitude",
  "longitude",
  "timezone",
  "isp",
  "organization",
  "asn",
  "reputation",
];
