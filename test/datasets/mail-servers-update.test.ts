import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dataFiles } from "../../src/datasets/data-layout.ts";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { parseMailServersFile } from "../../src/datasets/mail-servers-file.ts";
import { readServedEmail } from "../../src/datasets/served-email-file.ts";
import type { MailServerResolution } from "../../src/datasets/update/mail-servers.ts";
import { nodeModulesPackages } from "../../src/datasets/update/package-files.ts";
import { type UpdateReport, runUpdate } from "../../src/datasets/update/update.ts";
import { resolverMailDns } from "../../src/dns/resolver-mail-dns.ts";
import { DEFAULT_EVIDENCE_RULE, type EvidenceRule } from "../../src/email/evidence-rule.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { type NameRecords, startDnsServer } from "../support/dns-server.ts";
import { BUNDLED_SOURCES, makeDataDir } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// `update` with DNS evidence on, against DNS servers on the loopback address: it resolves the
// mail servers behind the known disposable domains, Castle-like rolling names first, within its
// bounds, and compiles the table into the version; with DNS off the table stays as it was.
setDefaultTimeout(scaled(90_000));

const dir = makeDataDir();
const feeds = mkdtempSync(join(tmpdir(), "rk-mail-servers-feeds-"));
const servers: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(feeds, { recursive: true, force: true });
});
writeFileSync(
  join(dir, "sources.json"),
  JSON.stringify({
    sources: [
      // The test's own rolling list is the only one, so that its names come first.
      ...BUNDLED_SOURCES.map((s) => ({ ...(s as object), kind: "full" })),
      {
        name: "top-list",
        url: `file://${join(feeds, "top-list.txt")}`,
        format: "domain-list",
        feeds: "disposable",
        kind: "rolling",
        verifies: true,
        licence: "made by the test",
      },
    ],
  }),
);
const TOP = ["burner-a-dns-test.com", "burner-b-dns-test.net", "burner-c-dns-test.org", "relayed-dns-test.com"];
const writeTop = (names: string[]) => writeFileSync(join(feeds, "top-list.txt"), `${names.join("\n")}\n`);

const ZONE = new Map<string, NameRecords>([
  ["burner-a-dns-test.com", { mx: [[10, "mx.burnermail-dns-test.net"]] }],
  ["burner-b-dns-test.net", { mx: [[10, "mx.burnermail-dns-test.net"]] }],
  ["burner-c-dns-test.org", { mx: [[10, "in.burner-c-dns-test.org"]] }],
  ["in.burner-c-dns-test.org", { a: ["185.100.87.10", "127.0.0.1"] }],
  ["mx.burnermail-dns-test.net", { a: ["185.100.87.10"], aaaa: ["2a0b:f4c0::10"] }],
  ["relayed-dns-test.com", { mx: [[10, "mx1.simplelogin.co"]] }],
  ["mx1.simplelogin.co", { a: ["176.119.200.128"] }],
]);

async function updateWith(
  mailServers: MailServerResolution | null,
  emailRule: EvidenceRule = DEFAULT_EVIDENCE_RULE,
): Promise<UpdateReport> {
  try {
    return await runUpdate({
      dataDir: dir,
      force: false,
      maxShrink: 0.99,
      keepVersions: 3,
      thresholds: DEFAULT_THRESHOLDS,
      env: {},
      progress: () => () => {},
      packages: nodeModulesPackages(resolve(import.meta.dir, "../../node_modules")),
      emailRule,
      mailServers,
    });
  } finally {
    mailServers?.dns.close();
  }
}
const table = () => parseMailServersFile(readFileSync(dataFiles(dir).mailServers, "utf8"));
/** The current version's email lists as the update kept them for `serve` under `rule`; read before any load could write them. */
const servedLists = (rule: EvidenceRule) =>
  readServedEmail(dir, realpathSync(join(dir, "current")), rule).prepared?.lists;

describe("update resolves the disposable domains' mail servers into the version", async () => {
  const dns = await startDnsServer(ZONE);
  servers.push(dns);
  writeTop(TOP);
  const first = await updateWith({
    dns: resolverMailDns([dns.address]),
    domains: 6,
    timeMs: scaled(20_000),
    inFlight: 4,
  });
  const servedAfterFirst = servedLists(DEFAULT_EVIDENCE_RULE);
  const afterFirst = (await loadSnapshot(dir, DEFAULT_THRESHOLDS)).snapshot.email.mailServers;
  const firstTable = table();

  test("the rolling list's names first, within the bound on domains", () => {
    expect(first.version).not.toBeNull();
    expect(first.mailServers).toMatchObject({ resolved: 6, failed: 0 });
    expect(first.mailServers!.waiting).toBeGreaterThan(1000);
    const asked = dns.queries.filter((q) => q.startsWith("MX ")).map((q) => q.slice(3));
    expect(asked).toHaveLength(6);
    expect(asked.slice(0, 4).sort()).toEqual([...TOP].sort());
  });

  test("the version's table: shared servers and public addresses; the relay's servers exempt", () => {
    const byDomain = new Map(table().map((o) => [o.domain, o]));
    expect(byDomain.get("burner-c-dns-test.org")).toMatchObject({
      hosts: ["in.burner-c-dns-test.org"],
      addresses: ["185.100.87.10"],
    });
    expect(byDomain.get("burner-a-dns-test.com")?.addresses.toSorted()).toEqual(["185.100.87.10", "2a0b:f4c0::10"]);
    expect(afterFirst.hosts.get("mx.burnermail-dns-test.net")?.domains).toBe(2);
    expect(afterFirst.addresses.get("185.100.87.10")?.domains).toBe(3);
    expect(afterFirst.addresses.has("127.0.0.1")).toBe(false);
    expect(afterFirst.exempt.get("mx1.simplelogin.co")).toContain("SimpleLogin");
    expect(first.mailServers).toMatchObject({ hosts: 1, exempt: 1 });
  });

  test("the version keeps its email lists as served with the table it resolved", () => {
    expect(servedAfterFirst?.mailServers.hosts.get("mx.burnermail-dns-test.net")?.domains).toBe(2);
    expect(servedAfterFirst?.mailServers).toEqual(afterFirst);
  });

  test("with DNS off the next version keeps the table as it was", async () => {
    writeTop([...TOP, "one-more-dns-test.com"]);
    const second = await updateWith(null, "strict");
    expect(second.version).not.toBeNull();
    expect(second.mailServers).toBeUndefined();
    expect(table()).toEqual(firstTable);
    // As the staged load wrote them, under the update's rule.
    const served = servedLists("strict");
    expect(served?.rule).toBe("strict");
    expect(served?.mailServers).toEqual(afterFirst);
  });

  test("a resolver that never answers: the update stops resolving at its time bound and keeps what it had", async () => {
    const silent = await startDnsServer(new Map(), "silent");
    servers.push(silent);
    writeTop([...TOP, "one-more-dns-test.com", "and-another-dns-test.com"]);
    const started = performance.now();
    const third = await updateWith({ dns: resolverMailDns([silent.address]), domains: 50, timeMs: 300, inFlight: 8 });
    expect(third.version).not.toBeNull();
    expect(third.mailServers).toMatchObject({ resolved: 0 });
    expect(silent.queries.length).toBeGreaterThan(0);
    expect(table()).toEqual(firstTable);
    expect(performance.now() - started).toBeLessThan(scaled(60_000));
    expect(existsSync(dataFiles(dir).mailServers)).toBe(true);
  });
});
