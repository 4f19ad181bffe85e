import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolverMailDns } from "../../src/dns/resolver-mail-dns.ts";
import { buildDomainLists } from "../../src/email/domain-lists.ts";
import { MailEvidence } from "../../src/email/mail-evidence.ts";
import type { MailObservation } from "../../src/email/mail-infrastructure.ts";
import { type NameRecords, startDnsServer } from "../support/dns-server.ts";
import { scaled } from "../support/slowness.ts";
import { FIXTURE_EMAIL_LISTS } from "../support/bundled-data.ts";
import { createTestApp, testSnapshot } from "../support/test-app.ts";

/**
 * The email check with DNS evidence on, through the real app, answered by a DNS server on the
 * loopback address that the test starts: a planted burner MX, a relay's custom domain, a
 * server that never answers, one that answers SERVFAIL, a null MX, a domain that does not exist.
 */
// Long enough for the loopback server's answers on a loaded machine, shorter than the resolver's own ~2 s give-up:
// the silent server then shows the budget, not the resolver's timeout.
const BUDGET_MS = 600;

/** What `update` would have resolved of two known disposable domains and of two on a relay's servers. */
const OBSERVED: MailObservation[] = [
  { domain: "mailinator.com", resolvedAt: 1, hosts: ["mx.burnermail.net"], addresses: ["185.100.87.10"] },
  { domain: "tempmail.dev", resolvedAt: 1, hosts: ["mx.burnermail.net"], addresses: ["185.100.87.10"] },
  { domain: "relayed-one.net", resolvedAt: 1, hosts: ["mx1.simplelogin.co"], addresses: ["176.119.200.128"] },
  { domain: "relayed-two.net", resolvedAt: 1, hosts: ["mx1.simplelogin.co"], addresses: ["176.119.200.128"] },
];

const ZONE = new Map<string, NameRecords>([
  ["fresh-burner.net", { mx: [[10, "mx.burnermail.net"]] }],
  ["mx.burnermail.net", { a: ["185.100.87.10"] }],
  ["own-mx.net", { mx: [[10, "mail.own-mx.net"]] }],
  ["mail.own-mx.net", { a: ["185.100.87.10"] }],
  [
    "my-alias-domain.net",
    {
      mx: [
        [10, "mx1.simplelogin.co"],
        [20, "mx2.simplelogin.co"],
      ],
    },
  ],
  ["mx1.simplelogin.co", { a: ["176.119.200.128"] }],
  ["mx2.simplelogin.co", { a: ["176.119.200.129"] }],
  ["ordinary-company.net", { mx: [[10, "mail.ordinary-company.net"]] }],
  ["mail.ordinary-company.net", { a: ["91.198.174.192"], aaaa: ["2a02:ec80::1"] }],
  ["silent.net", { silent: true }],
  ["servfail.net", { rcode: "SERVFAIL" }],
  ["parked.net", { mx: [[0, ""]] }],
  ["web-only.net", { a: ["91.198.174.10"] }],
]);

let dnsServer: Awaited<ReturnType<typeof startDnsServer>>;
let mail: MailEvidence;
let t: Awaited<ReturnType<typeof createTestApp>>;
let key: string;

beforeAll(async () => {
  dnsServer = await startDnsServer(ZONE);
  mail = new MailEvidence(resolverMailDns([dnsServer.address]), {
    budgetMs: BUDGET_MS,
    cacheSize: 1000,
    cacheTtlMs: 3_600_000,
    negativeTtlMs: 600_000,
    inFlight: 16,
  });
  const snapshot = await testSnapshot();
  t = await createTestApp({
    snapshot: { ...snapshot, email: buildDomainLists({ ...FIXTURE_EMAIL_LISTS, mailObservations: OBSERVED }).lists },
    mail,
  });
  key = (await t.newKey()).secret;
});

afterAll(async () => {
  mail?.close();
  await dnsServer?.stop();
});

const check = async (email: string, explain = true) => {
  const started = performance.now();
  const response = await t.request(`/v1/check?email=${encodeURIComponent(email)}${explain ? "&explain=1" : ""}`, {
    key,
  });
  return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started };
};

describe("GET /v1/check with DNS evidence on", () => {
  test("a new domain on a known burner's mail servers is disposable, with the shared servers in explain", async () => {
    const { status, body } = await check("someone@fresh-burner.net");
    expect(status).toBe(200);
    expect(body.is_disposable).toBe(true);
    expect(body.reasons.rule).toBe("mail-servers");
    expect(body.reasons.matched).toBe("mx.burnermail.net");
    expect(body.reasons.mail).toMatchObject({ lookup: "looked-up", deliverable: true, route: "mx" });
    expect(body.reasons.mail.servers).toEqual([{ host: "mx.burnermail.net", addresses: ["185.100.87.10"] }]);
    expect(body.reasons.mail.shared).toEqual([
      { server: "mx.burnermail.net", by: "host", domains: 2, examples: ["mailinator.com", "tempmail.dev"] },
      { server: "185.100.87.10", by: "address", domains: 2, examples: ["mailinator.com", "tempmail.dev"] },
    ]);
  });

  test("without explain the answer is the spec's four fields, the verdict DNS's", async () => {
    const { body } = await check("someone@own-mx.net", false);
    expect(body).toEqual({ email: "someone@own-mx.net", is_disposable: true, domain: "own-mx.net", free_email: false });
  });

  test("a relay's custom domain on servers disposable domains also use stays clean, and explain names the exemption", async () => {
    const { body } = await check("me@my-alias-domain.net");
    expect(body.is_disposable).toBe(false);
    expect(body.reasons.rule).toBe("not-listed");
    expect(body.reasons.mail.shared).toEqual([]);
    expect(body.reasons.mail.exempt).toEqual([
      { server: "mx1.simplelogin.co", reason: "a privacy relay's mail servers (SimpleLogin)" },
      { server: "mx2.simplelogin.co", reason: "a privacy relay's mail servers (SimpleLogin)" },
    ]);
  });

  test("an ordinary domain is looked up once, then answered from the cache", async () => {
    const first = await check("a@ordinary-company.net");
    expect(first.body.is_disposable).toBe(false);
    expect(first.body.reasons.mail).toMatchObject({ lookup: "looked-up", deliverable: true, shared: [] });
    const asked = dnsServer.queries.filter((q) => q.endsWith("ordinary-company.net")).length;
    const second = await check("b@ordinary-company.net");
    expect(second.body.reasons.mail.lookup).toBe("cached");
    expect(dnsServer.queries.filter((q) => q.endsWith("ordinary-company.net")).length).toBe(asked);
  });

  test("a null MX and a domain that does not exist cannot receive mail: deliverable false", async () => {
    const parked = await check("a@parked.net");
    expect(parked.body.is_disposable).toBe(false);
    expect(parked.body.reasons.mail).toMatchObject({ deliverable: false, route: "null-mx", servers: [] });
    const gone = await check("a@no-such-domain-anywhere.net");
    expect(gone.body.reasons.mail).toMatchObject({ deliverable: false, route: "no-mail" });
    // No MX but an address: mail goes to the domain itself.
    const webOnly = await check("a@web-only.net");
    expect(webOnly.body.reasons.mail).toMatchObject({ deliverable: true, route: "address" });
    expect(webOnly.body.reasons.mail.servers).toEqual([{ host: "web-only.net", addresses: ["91.198.174.10"] }]);
  });

  test("SERVFAIL: the lists answer, nothing is said of delivery", async () => {
    const { body } = await check("a@servfail.net");
    expect(body.is_disposable).toBe(false);
    expect(body.reasons.mail).toMatchObject({ lookup: "looked-up", deliverable: null, route: "failed" });
  });

  test("a server that never answers: the lists answer within the budget", async () => {
    const { body, ms } = await check("a@silent.net");
    expect(body.is_disposable).toBe(false);
    expect(body.reasons.mail).toMatchObject({ lookup: "timed-out", deliverable: null, route: null });
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS - 5);
    expect(ms).toBeLessThan(BUDGET_MS + scaled(250));
  });

  test("a domain a list decides is never looked up", async () => {
    const before = dnsServer.queries.length;
    for (const email of ["a@mailinator.com", "a@gmail.com", "a@duck.com", "a@sub.mailinator.com"]) await check(email);
    expect(dnsServer.queries.length).toBe(before);
  });

  test("the batch takes the same road: its undecided items are looked up together", async () => {
    const response = await t.request("/v1/check/batch", {
      key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ emails: ["x@fresh-burner.net", "x@gmail.com", "x@parked.net", "not-an-address"] }),
    });
    const body = (await response.json()) as { emails: { is_disposable?: boolean }[] };
    expect(body.emails.map((e: { is_disposable?: boolean }) => e.is_disposable)).toEqual([
      true,
      false,
      false,
      undefined,
    ]);
  });

  test("/metrics counts lookups, cache hits, timeouts and DNS-decided answers", async () => {
    const text = await (await t.request("/metrics")).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
    expect(value("riskcheck_email_dns_lookups_total")).toBe(mail.counts.lookups);
    expect(value("riskcheck_email_dns_lookups_total")).toBeGreaterThanOrEqual(8);
    expect(value("riskcheck_email_dns_cache_hits_total")).toBeGreaterThanOrEqual(2);
    expect(value("riskcheck_email_dns_timeouts_total")).toBe(1);
    expect(value("riskcheck_email_dns_decided_total")).toBeGreaterThanOrEqual(3);
    expect(value("riskcheck_email_dns_lookup_failures_total")).toBeGreaterThanOrEqual(1);
    expect(text).toContain("riskcheck_email_dns_in_flight ");
    // The checks were counted under their endpoint, with their status, though they answered later.
    expect(text).toMatch(/riskcheck_requests_total\{endpoint="\/v1\/check",status="200"\} \d+/);
  });
});

describe("/v1/assess with DNS evidence on", () => {
  const assess = async (query: string) =>
    (await (await t.request(`/v1/assess?${query}`, { key })).json()) as {
      decision: string;
      reasons: { code: string; fact: string }[];
      email: { is_disposable: boolean };
    };

  test("the email answer is the email check's: disposable by its mail servers, undeliverable by a null MX", async () => {
    const burner = await assess("email=x@own-mx.net&event=signup");
    expect(burner.email.is_disposable).toBe(true);
    expect(burner.reasons.map((r) => r.code)).toEqual(["email.disposable"]);
    expect(burner.decision).toBe("challenge");
    const parked = await assess("email=x@parked.net");
    expect(parked.email.is_disposable).toBe(false);
    expect(parked.reasons).toEqual([
      { code: "email.undeliverable", weight: 50, fact: "no mail can reach parked.net (its DNS publishes a null MX)" },
    ] as never);
    expect(parked.decision).toBe("challenge");
    expect((await assess("email=x@ordinary-company.net")).decision).toBe("allow");
  });

  test("the batch's assess items take the same road", async () => {
    const response = await t.request("/v1/check/batch", {
      key,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assess: [{ email: "y@fresh-burner.net" }, { email: "y@parked.net", ip: "10.0.0.1" }] }),
    });
    const body = (await response.json()) as { assess: { decision: string; reasons: { code: string }[] }[] };
    expect(body.assess.map((a) => [a.decision, a.reasons.map((r) => r.code)])).toEqual([
      ["challenge", ["email.disposable"]],
      ["challenge", ["email.undeliverable"]],
    ]);
  });
});
