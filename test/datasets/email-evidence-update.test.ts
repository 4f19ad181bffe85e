import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { parseEvidenceFile } from "../../src/datasets/email-evidence-file.ts";
import { readServedEmail } from "../../src/datasets/served-email-file.ts";
import { DEFAULT_EVIDENCE_RULE } from "../../src/email/evidence-rule.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_SOURCES, makeDataDir, runCliAsync } from "../support/processes.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// Real `riskcheck update` runs on the bundled sources plus three small disposable lists
// (made here, file://): one that copies another, and one that verifies its entries.
setDefaultTimeout(scaled(60_000));

const dir = makeDataDir();
const feeds = mkdtempSync(join(tmpdir(), "rk-email-feeds-"));
writeFileSync(join(dir, "email", "allowlist.txt"), "allowed-corp.com # our own staff domain\n");
const list = (name: string, names: string[]) => writeFileSync(join(feeds, `${name}.txt`), `${names.join("\n")}\n`);
const source = (name: string, extra: object = {}) => ({
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
      source("primary-list"),
      source("copying-list", { includes: ["primary-list"] }),
      source("verifying-list", { verifies: true }),
    ],
  }),
);
list("primary-list", ["a-primary.example-listed.com"]);
list("copying-list", ["copied-alone.example-listed.com", "a-primary.example-listed.com"]);
list("verifying-list", ["verified-new.example-listed.com"]);

async function served() {
  const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
  const app = await createTestApp({ snapshot, ratePerMinute: 0 });
  const key = (await app.newKey()).secret;
  const check = async (address: string): Promise<any> =>
    (await app.request(`/v1/check?email=${encodeURIComponent(address)}&explain=1`, { key })).json();
  return { snapshot, app, check };
}
const evidenceOf = (name: string) =>
  parseEvidenceFile(readFileSync(join(dir, "current", "email", "evidence", `${name}.txt`), "utf8")).firstSeen;

describe("the first update with the three lists", async () => {
  const run = await runCliAsync(["update", "--data-dir", dir]);
  // Before any load here could write it.
  const servedByUpdate = readServedEmail(dir, realpathSync(join(dir, "current")), DEFAULT_EVIDENCE_RULE).prepared;
  const { check } = await served();

  test("installs a version with one evidence file per disposable list", () => {
    expect(run.code).toBe(0);
    expect(readdirSync(join(dir, "current", "email", "evidence")).sort()).toEqual(
      [
        "bundled-castle",
        "bundled-disposable-domains",
        "bundled-fakefilter",
        "bundled-ivolo-disposable",
        "bundled-ivolo-wildcards",
        "copying-list",
        "primary-list",
        "verifying-list",
      ].map((n) => `${n}.txt`),
    );
    expect(evidenceOf("copying-list").get("copied-alone.example-listed.com")).toBeGreaterThan(0);
    // What serve reads instead of the evidence files (test/datasets/email-evidence-pack.test.ts).
    expect(existsSync(join(dir, "current", "email", "evidence.pack"))).toBe(true);
  });

  test("keeps the email lists as served under the rule, with the operator's allowlist: a start makes none", () => {
    expect(servedByUpdate).not.toBeNull();
    expect(servedByUpdate!.lists.allow.has("allowed-corp.com")).toBe(true);
    expect(servedByUpdate!.lists.free.size).toBeGreaterThan(1_000);
  });

  test("a name only a copying list names is below the evidence rule; explain says so", async () => {
    const body = await check("user@copied-alone.example-listed.com");
    expect(body).toMatchObject({
      is_disposable: false,
      reasons: { rule: "below-evidence", evidence: "copied", confidence: "low", evidence_rule: "corroborated" },
    });
    expect(body.reasons.sources).toEqual([
      expect.objectContaining({
        source: "copying-list",
        entry: "copied-alone.example-listed.com",
        match: "exact",
        verifies: false,
        copies: ["primary-list"],
      }),
    ]);
  });

  test("a list that copies no other, and a verifying list, are enough alone", async () => {
    expect(await check("user@a-primary.example-listed.com")).toMatchObject({
      is_disposable: true,
      reasons: { rule: "listed", evidence: "single" },
    });
    expect(await check("user@verified-new.example-listed.com")).toMatchObject({
      is_disposable: true,
      reasons: { rule: "listed", evidence: "verified", confidence: "high" },
    });
  });
});

describe("a second update whose lists contradict what riskcheck knows", async () => {
  const firstSeen = evidenceOf("copying-list").get("copied-alone.example-listed.com");
  list("copying-list", [
    "copied-alone.example-listed.com",
    "a-primary.example-listed.com",
    "gmail.com",
    "pp.ua",
    "mozmail.com",
    "allowed-corp.com",
    "new-throwaway.example-listed.com",
  ]);
  list("verifying-list", ["verified-new.example-listed.com", "yahoo.com"]);
  // On the free list's long tail (email-providers all.json) alone, and on its popular part (common.json).
  list("primary-list", ["a-primary.example-listed.com", "1secmail.xyz", "hidemyass.com"]);
  const run = await runCliAsync(["update", "--data-dir", dir]);
  const { app, check, snapshot } = await served();

  test("the evidence settles what it can; the rest is held back, most likely disposable first", () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      [
        "Held back 3 new disposable names that contradict what riskcheck knows and that the evidence does not settle (disputed, most likely disposable first; settle each with riskcheck email allow|deny):",
        "  hidemyass.com: a popular free provider; listed by primary-list",
        "  gmail.com: a popular free provider; listed by copying-list",
        "  pp.ua: a public suffix; listed by copying-list",
      ].join("\n"),
    );
    expect(run.stdout).toContain(
      [
        "Served 2 disputed names that the evidence settles as disposable:",
        "  1secmail.xyz: on the free-provider list; listed by primary-list; a list that copies no other names it, against the free list's long tail (no popular provider)",
        "  yahoo.com: a popular free provider; listed by verifying-list; a verifying list or two independent lists name it",
      ].join("\n"),
    );
    // mozmail.com is a privacy relay, allowed-corp.com on the operator's allowlist.
    expect(run.stdout).toContain("The allowlist and the privacy relays overrule 2 names that the lists newly list.");
    expect(readFileSync(join(dir, "current", "email", "disputed.txt"), "utf8")).toContain(
      "gmail.com # a popular free provider; listed by copying-list",
    );
    expect([...snapshot.email.heldBack].sort()).toEqual(["gmail.com", "hidemyass.com", "pp.ua"]);
  });

  test("a held-back name keeps its verdict, and explain says it is disputed", async () => {
    expect(await check("someone@gmail.com")).toMatchObject({
      is_disposable: false,
      free_email: true,
      reasons: { rule: "disputed", matched: "gmail.com" },
    });
    expect(await check("someone@pp.ua")).toMatchObject({ is_disposable: false, reasons: { rule: "disputed" } });
    expect(await check("someone@yahoo.com")).toMatchObject({
      is_disposable: true,
      reasons: { rule: "listed", evidence: "verified" },
    });
    expect(await check("someone@1secmail.xyz")).toMatchObject({
      is_disposable: true,
      free_email: false,
      reasons: { rule: "listed", evidence: "single" },
    });
    expect(await check("someone@mozmail.com")).toMatchObject({ is_disposable: false, reasons: { rule: "relay" } });
  });

  test("a listing's first sighting survives the update that changed its list", () => {
    expect(evidenceOf("copying-list").get("copied-alone.example-listed.com")).toBe(firstSeen!);
  });

  test("/healthz warns about the unsettled names until an override settles each", async () => {
    const warningsOf = async () =>
      ((await (await app.request("/healthz")).json()) as { warnings: string[] }).warnings.filter((w) =>
        w.includes("disputed"),
      );
    expect(await warningsOf()).toEqual([
      expect.stringContaining("3 disputed disposable names held back by update, not yet settled"),
    ]);
    const line = {
      action: "allow" as const,
      reason: "a public suffix",
      author: "test",
      created: new Date().toISOString(),
      until: null,
    };
    await app.stores.emailOverrides.put({ ...line, domain: "pp.ua" });
    await app.stores.emailOverrides.put({ ...line, domain: "gmail.com" });
    await app.emailOverrides.refresh();
    expect(await warningsOf()).toEqual([
      expect.stringContaining("1 disputed disposable names held back by update, not yet settled (hidemyass.com)"),
    ]);
    await app.stores.emailOverrides.put({ ...line, domain: "hidemyass.com" });
    await app.emailOverrides.refresh();
    expect(await warningsOf()).toEqual([]);
  });
});
