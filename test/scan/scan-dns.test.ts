import { afterAll, expect, test } from "bun:test";
import { resolverMailDns } from "../../src/dns/resolver-mail-dns.ts";
import { buildDomainLists } from "../../src/email/domain-lists.ts";
import { MailEvidence } from "../../src/email/mail-evidence.ts";
import { scan } from "../../src/scan/scan.ts";
import { type NameRecords, startDnsServer } from "../support/dns-server.ts";
import { FIXTURE_EMAIL_LISTS } from "../support/bundled-data.ts";
import { testSnapshot } from "../support/test-app.ts";

// `scan` takes the check's road with DNS evidence on: the rows no list decides are looked up
// (here against a DNS server on the loopback address), never more at once than the cap, and
// no row is answered from the lists for want of room.
const zone = new Map<string, NameRecords>([["mx.burnermail.net", { a: ["185.100.87.10"] }]]);
const DOMAINS = 40;
for (let i = 0; i < DOMAINS; i++)
  zone.set(`scan-${i}.net`, { mx: [[10, i % 2 === 0 ? "mx.burnermail.net" : `mail.scan-${i}.net`]] });
const dnsServer = await startDnsServer(zone);
afterAll(() => dnsServer.stop());

test("each row no list decides gets the DNS verdict, in input order, within the cap on lookups", async () => {
  const snapshot = await testSnapshot();
  const email = buildDomainLists({
    ...FIXTURE_EMAIL_LISTS,
    mailObservations: [
      { domain: "mailinator.com", resolvedAt: 1, hosts: ["mx.burnermail.net"], addresses: [] },
      { domain: "tempmail.dev", resolvedAt: 1, hosts: ["mx.burnermail.net"], addresses: [] },
    ],
  }).lists;
  const mail = new MailEvidence(resolverMailDns([dnsServer.address]), {
    budgetMs: 1_500,
    cacheSize: 1000,
    cacheTtlMs: 3_600_000,
    negativeTtlMs: 600_000,
    inFlight: 3,
  });
  const rows = [...Array.from({ length: DOMAINS }, (_, i) => `user@scan-${i}.net`), "a@gmail.com", "a@scan-0.net"];
  let out = "";
  async function* input() {
    yield new TextEncoder().encode(`${rows.join("\n")}\n`);
  }
  try {
    const summary = await scan(
      input(),
      { write: (text) => void (out += text) },
      { ...snapshot, email },
      { explain: false, onlyRisky: false, columns: {}, format: "jsonl", mail },
    );
    const answers = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).email);
    expect(answers.map((a: { email: string }) => a.email)).toEqual(rows);
    expect(answers.slice(0, DOMAINS).map((a: { is_disposable: boolean }) => a.is_disposable)).toEqual(
      Array.from({ length: DOMAINS }, (_, i) => i % 2 === 0),
    );
    expect(answers.at(-1).is_disposable).toBe(true);
    expect(summary.disposable).toBe(DOMAINS / 2 + 1);
    expect(mail.counts).toMatchObject({ lookups: DOMAINS, skipped: 0, timeouts: 0, cacheHits: 1 });
  } finally {
    mail.close();
  }
});
