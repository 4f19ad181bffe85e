import { describe, expect, test } from "bun:test";
import { buildDomainLists } from "../../src/email/domain-lists.ts";
import { emailAnswer } from "../../src/email/email-answer.ts";
import type { EmailAnswer } from "../../src/email/email-answer-schema.ts";
import { explainEmail } from "../../src/email/explanation.ts";
import type { DnsAnswer, MailDns, MxRecord } from "../../src/email/mail-dns.ts";
import { MailEvidence, type MailEvidenceSettings } from "../../src/email/mail-evidence.ts";
import { MIN_SHARING_DOMAINS, type MailObservation, mailInfrastructure } from "../../src/email/mail-infrastructure.ts";
import { lookUpMailRoute } from "../../src/email/mail-route.ts";
import { MailRouteCache } from "../../src/email/mail-route-cache.ts";
import { EXEMPT_MAIL_SERVERS, mailServerExemption } from "../../src/email/mail-server-exemptions.ts";
import { scaled } from "../support/slowness.ts";

/** A name's records in the fake resolver: MX, addresses, or an answer of its own; `delayMs` before it answers, `hang` never. */
interface FakeName {
  mx?: DnsAnswer<MxRecord>;
  addresses?: DnsAnswer<string>;
  delayMs?: number;
  hang?: boolean;
}

/** The port answered from a table, counting questions; `close` fails what hangs. */
function fakeDns(names: Record<string, FakeName>) {
  const asked: string[] = [];
  const hanging = new Set<() => void>();
  const answer = <T>(name: string, pick: (n: FakeName) => DnsAnswer<T> | undefined): Promise<DnsAnswer<T>> => {
    const n = names[name];
    const a: DnsAnswer<T> = (n && pick(n)) ?? { none: true };
    if (n?.hang) return new Promise((resolve) => hanging.add(() => resolve({ failed: "ECANCELLED" })));
    return n?.delayMs ? Bun.sleep(n.delayMs).then(() => a) : Promise.resolve(a);
  };
  const dns: MailDns = {
    mx: (domain) => {
      asked.push(`MX ${domain}`);
      return answer(domain, (n) => n.mx);
    },
    addresses: (host) => {
      asked.push(`A ${host}`);
      return answer(host, (n) => n.addresses);
    },
    close: () => {
      for (const fail of hanging) fail();
      hanging.clear();
    },
  };
  return { dns, asked };
}

const mx = (...exchanges: string[]): DnsAnswer<MxRecord> => ({
  records: exchanges.map((exchange, i) => ({ exchange, priority: 10 * (i + 1) })),
});
const at = (...records: string[]): DnsAnswer<string> => ({ records });

/** Two disposable services, one on a relay's servers (which never count), and a domain on Google's. */
const OBSERVED: MailObservation[] = [
  { domain: "burner-one.xyz", resolvedAt: 1, hosts: ["mx.burnermail.net"], addresses: ["185.100.87.10"] },
  { domain: "burner-two.site", resolvedAt: 1, hosts: ["mx.burnermail.net"], addresses: ["185.100.87.10"] },
  { domain: "a.burner-three.top", resolvedAt: 1, hosts: ["in.rotating.org"], addresses: ["185.100.87.20"] },
  { domain: "b.burner-three.top", resolvedAt: 1, hosts: ["in.rotating.org"], addresses: ["185.100.87.20"] },
  { domain: "c.burner-four.top", resolvedAt: 1, hosts: ["mx.burner-four.top"], addresses: ["185.100.87.30"] },
  { domain: "d.burner-five.top", resolvedAt: 1, hosts: ["mx.burner-five.top"], addresses: ["185.100.87.30"] },
  { domain: "relayed-one.xyz", resolvedAt: 1, hosts: ["mx1.simplelogin.co"], addresses: ["176.119.200.128"] },
  { domain: "relayed-two.xyz", resolvedAt: 1, hosts: ["mx1.simplelogin.co"], addresses: ["176.119.200.128"] },
  { domain: "hosted-one.xyz", resolvedAt: 1, hosts: ["aspmx.l.google.com"], addresses: ["142.250.153.26"] },
  { domain: "hosted-two.xyz", resolvedAt: 1, hosts: ["aspmx.l.google.com"], addresses: ["142.250.153.26"] },
];

const lists = buildDomainLists({
  disposable: OBSERVED.map((o) => o.domain),
  disposableWildcard: [],
  free: ["gmail.com", "yandex-like.org"],
  freeSupplement: [],
  allow: ["our-company.org"],
  mailObservations: OBSERVED,
}).lists;

const SETTINGS: MailEvidenceSettings = {
  budgetMs: 150,
  cacheSize: 1000,
  cacheTtlMs: 3_600_000,
  negativeTtlMs: 600_000,
  inFlight: 8,
};

const answerOf = (email: string): EmailAnswer => emailAnswer(lists, email)!;

describe("where a domain's mail goes (lookUpMailRoute)", () => {
  test("MX hosts, lowest preference first, normalised, with their addresses", async () => {
    const { dns } = fakeDns({
      "new.org": {
        mx: {
          records: [
            { exchange: "B.mx.org.", priority: 20 },
            { exchange: "a.mx.org", priority: 5 },
          ],
        },
      },
      "a.mx.org": { addresses: at("185.1.1.1", "2A01:4F8::1") },
      "b.mx.org": { addresses: { failed: "ESERVFAIL" } },
    });
    expect(await lookUpMailRoute(dns, "new.org")).toEqual({
      kind: "mx",
      servers: [
        { host: "a.mx.org", addresses: ["185.1.1.1", "2a01:4f8::1"] },
        { host: "b.mx.org", addresses: [] },
      ],
    });
  });

  test("a null MX (RFC 7505), no MX and no address, and MX records naming no host all lead nowhere", async () => {
    const { dns } = fakeDns({
      "null.org": { mx: { records: [{ exchange: "", priority: 0 }] } },
      "dot.org": { mx: { records: [{ exchange: ".", priority: 0 }] } },
      "bare.org": {},
      "junk.org": { mx: mx("192.0.2.1", "not_a_host") },
    });
    expect((await lookUpMailRoute(dns, "null.org")).kind).toBe("null-mx");
    expect((await lookUpMailRoute(dns, "dot.org")).kind).toBe("null-mx");
    expect((await lookUpMailRoute(dns, "bare.org")).kind).toBe("no-mail");
    expect((await lookUpMailRoute(dns, "junk.org")).kind).toBe("no-mail");
  });

  test("without MX, mail goes to the domain's own address (RFC 5321)", async () => {
    const { dns } = fakeDns({ "own.org": { addresses: at("185.2.2.2") } });
    expect(await lookUpMailRoute(dns, "own.org")).toEqual({
      kind: "address",
      servers: [{ host: "own.org", addresses: ["185.2.2.2"] }],
    });
  });

  test("a failure of the MX question, or of the address question without MX, is a failure: nothing is said of delivery", async () => {
    const { dns } = fakeDns({
      "servfail.org": { mx: { failed: "ESERVFAIL" } },
      "half.org": { addresses: { failed: "ETIMEOUT" } },
    });
    expect(await lookUpMailRoute(dns, "servfail.org")).toEqual({ kind: "failed", reason: "ESERVFAIL" });
    expect(await lookUpMailRoute(dns, "half.org")).toEqual({ kind: "failed", reason: "ETIMEOUT" });
  });

  test("at most four MX hosts are looked at", async () => {
    const { dns, asked } = fakeDns({ "many.org": { mx: mx("a.x.org", "b.x.org", "c.x.org", "d.x.org", "e.x.org") } });
    const route = await lookUpMailRoute(dns, "many.org");
    expect(route.kind === "mx" && route.servers.map((s) => s.host)).toEqual([
      "a.x.org",
      "b.x.org",
      "c.x.org",
      "d.x.org",
    ]);
    expect(asked).not.toContain("A e.x.org");
  });
});

describe("the table of disposable mail infrastructure", () => {
  const table = lists.mailServers;

  test(`a host or address counts once ${MIN_SHARING_DOMAINS} disposable registrable domains share it`, () => {
    expect(table.hosts.get("mx.burnermail.net")).toEqual({
      domains: 2,
      examples: ["burner-one.xyz", "burner-two.site"],
    });
    expect(table.addresses.get("185.100.87.10")?.domains).toBe(2);
    // Two subdomains of one registrable domain are one service: not enough alone.
    expect(table.hosts.has("in.rotating.org")).toBe(false);
    expect(table.addresses.has("185.100.87.20")).toBe(false);
    // Each domain's own MX host, one domain each; their shared address counts.
    expect(table.hosts.has("mx.burner-four.top")).toBe(false);
    expect(table.addresses.get("185.100.87.30")?.domains).toBe(2);
  });

  test("big providers' and relays' servers never count, nor their addresses, and each says why", () => {
    expect(table.hosts.has("mx1.simplelogin.co")).toBe(false);
    expect(table.addresses.has("176.119.200.128")).toBe(false);
    expect(table.hosts.has("aspmx.l.google.com")).toBe(false);
    expect(table.addresses.has("142.250.153.26")).toBe(false);
    expect(table.exempt.get("mx1.simplelogin.co")).toBe("a privacy relay's mail servers (SimpleLogin)");
    expect(table.exempt.get("aspmx.l.google.com")).toContain("Google");
  });

  test("every curated exemption has a reason; a free provider's or an allowlisted domain's servers are exempt too", () => {
    for (const [domain, reason] of EXEMPT_MAIL_SERVERS) {
      expect(domain).toMatch(/^[a-z0-9.-]+\.[a-z]+$/);
      expect(reason.length).toBeGreaterThan(10);
    }
    const knownGood = (d: string) => (d === "yandex-like.org" ? "a free provider's" : null);
    expect(mailServerExemption("mx.yandex-like.org", knownGood)).toBe("a free provider's");
    expect(mailServerExemption("mx.burnermail.net", knownGood)).toBeNull();
    expect(mailServerExemption("eu-smtp-inbound-1.mimecast.com", knownGood)).toContain("Mimecast");
  });
});

describe("the check's DNS evidence (MailEvidence)", () => {
  test("an answer a list decides comes back as it is, at once, and nothing is asked", () => {
    const { dns, asked } = fakeDns({});
    const mail = new MailEvidence(dns, SETTINGS);
    for (const email of ["a@gmail.com", "a@burner-one.xyz", "a@our-company.org", "a@x.our-company.org", "a@duck.com"]) {
      const a = answerOf(email);
      expect(mail.consult(lists, a)).toBe(a);
    }
    expect(asked).toEqual([]);
  });

  test("a new domain on a burner's mail servers is disposable, with the evidence; then from the cache at once", async () => {
    const { dns, asked } = fakeDns({
      "fresh-burner.xyz": { mx: mx("mx.burnermail.net") },
      "mx.burnermail.net": { addresses: at("185.100.87.10") },
    });
    const mail = new MailEvidence(dns, SETTINGS);
    const first = mail.consult(lists, answerOf("someone@fresh-burner.xyz"));
    expect(first).toBeInstanceOf(Promise);
    const answer = await first;
    expect(answer.is_disposable).toBe(true);
    expect(answer.free_email).toBe(false);
    expect(answer.mail?.lookup).toBe("looked-up");
    expect(answer.mail?.deliverable).toBe(true);
    expect(answer.mail?.shared.map((s) => [s.server, s.by, s.domains])).toEqual([
      ["mx.burnermail.net", "host", 2],
      ["185.100.87.10", "address", 2],
    ]);
    const again = mail.consult(lists, answerOf("other@fresh-burner.xyz"));
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as EmailAnswer).is_disposable).toBe(true);
    expect((again as EmailAnswer).mail?.lookup).toBe("cached");
    expect(asked).toEqual(["MX fresh-burner.xyz", "A mx.burnermail.net"]);
    expect(mail.counts).toMatchObject({ lookups: 1, cacheHits: 1, decided: 2, timeouts: 0, skipped: 0 });

    const reasons = explainEmail(lists, answer.email, answer.domain, { sources: [] }, answer.mail);
    expect(reasons.rule).toBe("mail-servers");
    expect(reasons.matched).toBe("mx.burnermail.net");
    expect(reasons.mail).toMatchObject({ lookup: "looked-up", deliverable: true, route: "mx" });
    expect(reasons.mail?.servers).toEqual([{ host: "mx.burnermail.net", addresses: ["185.100.87.10"] }]);
  });

  test("a cached route is matched again against a new version's table (a reload)", async () => {
    const { dns } = fakeDns({
      "newly-shared.xyz": { mx: mx("mx.newcomer.net") },
      "mx.newcomer.net": { addresses: at("185.100.99.1") },
    });
    const mail = new MailEvidence(dns, SETTINGS);
    const before = await mail.consult(lists, answerOf("a@newly-shared.xyz"));
    expect(before.is_disposable).toBe(false);
    const newcomers: MailObservation[] = ["one-more.xyz", "two-more.site"].map((domain) => ({
      domain,
      resolvedAt: 2,
      hosts: ["mx.newcomer.net"],
      addresses: ["185.100.99.1"],
    }));
    const reloaded = buildDomainLists({
      disposable: [...OBSERVED, ...newcomers].map((o) => o.domain),
      disposableWildcard: [],
      free: ["gmail.com"],
      freeSupplement: [],
      allow: [],
      mailObservations: [...OBSERVED, ...newcomers],
    }).lists;
    const after = mail.consult(reloaded, answerOf("b@newly-shared.xyz")) as EmailAnswer;
    expect(after.mail?.lookup).toBe("cached");
    expect(after.is_disposable).toBe(true);
    expect(after.mail?.shared.map((s) => s.server)).toEqual(["mx.newcomer.net", "185.100.99.1"]);
    expect((mail.consult(lists, answerOf("c@newly-shared.xyz")) as EmailAnswer).is_disposable).toBe(false);
  });

  test("a domain on a different host at a burner's address is disposable by the address", async () => {
    const { dns } = fakeDns({
      "rotated.top": { mx: mx("mx.rotated.top") },
      "mx.rotated.top": { addresses: at("185.100.87.30") },
    });
    const answer = await new MailEvidence(dns, SETTINGS).consult(lists, answerOf("a@rotated.top"));
    expect(answer.is_disposable).toBe(true);
    expect(answer.mail?.shared).toEqual([
      { server: "185.100.87.30", by: "address", domains: 2, examples: ["burner-five.top", "burner-four.top"] },
    ]);
  });

  test("a relay's custom domain, on the relay's servers that disposable domains also use, stays clean and says why", async () => {
    const { dns } = fakeDns({
      "my-own-name.org": { mx: mx("mx1.simplelogin.co", "mx2.simplelogin.co") },
      "mx1.simplelogin.co": { addresses: at("176.119.200.128") },
    });
    const answer = await new MailEvidence(dns, SETTINGS).consult(lists, answerOf("me@my-own-name.org"));
    expect(answer.is_disposable).toBe(false);
    expect(answer.mail?.shared).toEqual([]);
    expect(answer.mail?.exempt.map((e) => e.server)).toEqual(["mx1.simplelogin.co", "mx2.simplelogin.co"]);
    const reasons = explainEmail(lists, answer.email, answer.domain, { sources: [] }, answer.mail);
    expect(reasons.rule).toBe("not-listed");
    expect(reasons.mail?.exempt[0].reason).toContain("SimpleLogin");
  });

  test("a null MX or no MX and no address: deliverable false, not disposable", async () => {
    const { dns } = fakeDns({ "parked.org": { mx: { records: [{ exchange: "", priority: 0 }] } }, "gone.org": {} });
    const mail = new MailEvidence(dns, SETTINGS);
    for (const [email, route] of [
      ["a@parked.org", "null-mx"],
      ["a@gone.org", "no-mail"],
    ] as const) {
      const answer = await mail.consult(lists, answerOf(email));
      expect(answer.is_disposable).toBe(false);
      expect(answer.mail).toMatchObject({ deliverable: false, route: { kind: route } });
      expect(explainEmail(lists, email, answer.domain, { sources: [] }, answer.mail).mail?.deliverable).toBe(false);
    }
  });

  test("a failed lookup says nothing of delivery and is cached only briefly", async () => {
    const { dns } = fakeDns({ "broken.org": { mx: { failed: "ESERVFAIL" } } });
    let now = 1_000_000;
    const mail = new MailEvidence(dns, SETTINGS, () => now);
    const answer = await mail.consult(lists, answerOf("a@broken.org"));
    expect(answer.mail).toMatchObject({ deliverable: null, route: { kind: "failed" } });
    expect(mail.counts.failed).toBe(1);
    now += 29_000;
    expect(mail.consult(lists, answerOf("a@broken.org"))).not.toBeInstanceOf(Promise);
    now += 2_000;
    expect(mail.consult(lists, answerOf("a@broken.org"))).toBeInstanceOf(Promise);
  });

  test("a lookup past the budget answers from the lists within the budget, and fills the cache for the next check", async () => {
    const { dns } = fakeDns({
      "slow-burner.xyz": { mx: mx("mx.burnermail.net"), delayMs: 400 },
      "mx.burnermail.net": { addresses: at("185.100.87.10") },
    });
    const mail = new MailEvidence(dns, { ...SETTINGS, budgetMs: 50 });
    const started = performance.now();
    const answer = await mail.consult(lists, answerOf("a@slow-burner.xyz"));
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(45);
    expect(waited).toBeLessThan(scaled(300));
    expect(answer.is_disposable).toBe(false);
    expect(answer.mail).toMatchObject({ lookup: "timed-out", route: null, deliverable: null });
    expect(mail.counts.timeouts).toBe(1);
    await Bun.sleep(500);
    const next = mail.consult(lists, answerOf("b@slow-burner.xyz")) as EmailAnswer;
    expect(next.mail?.lookup).toBe("cached");
    expect(next.is_disposable).toBe(true);
  });

  test("lookups in flight are capped: a check waits for room within its budget, else the lists answer it", async () => {
    const { dns, asked } = fakeDns({
      "hangs-one.org": { hang: true },
      "hangs-two.org": { hang: true },
      "quick.org": { mx: mx("mx.quick.org") },
    });
    const mail = new MailEvidence(dns, { ...SETTINGS, inFlight: 1, budgetMs: 60 });
    const one = mail.consult(lists, answerOf("a@hangs-one.org"));
    // The same domain joins the lookup under way; another waits for room, and its budget runs out first.
    const same = mail.consult(lists, answerOf("b@hangs-one.org"));
    const two = mail.consult(lists, answerOf("a@hangs-two.org"));
    expect(mail.inFlight).toBe(1);
    expect(mail.hasRoom).toBe(false);
    expect((await one).mail?.lookup).toBe("timed-out");
    expect((await same).mail?.lookup).toBe("timed-out");
    expect((await two).mail?.lookup).toBe("skipped");
    expect(mail.counts).toMatchObject({ lookups: 1, timeouts: 2, skipped: 1 });
    expect(asked).toEqual(["MX hangs-one.org"]);
    // Once the hanging lookup ends, a waiting check gets its room.
    const waiting = mail.consult(lists, answerOf("a@quick.org"));
    mail.close();
    expect((await waiting).mail?.lookup).toBe("looked-up");
    expect(mail.inFlight).toBe(0);
  });
});

describe("the cache of mail routes", () => {
  const ttls = { positiveMs: 1000, negativeMs: 100, failureMs: 10 };
  const servers = { kind: "mx", servers: [] } as const;

  test("each kind of route keeps for its own TTL", () => {
    const cache = new MailRouteCache(10, ttls);
    cache.set("a.org", servers, 0);
    cache.set("b.org", { kind: "null-mx" }, 0);
    cache.set("c.org", { kind: "failed", reason: "ESERVFAIL" }, 0);
    expect([cache.get("a.org", 50), cache.get("b.org", 50), cache.get("c.org", 50)].map((r) => r?.kind)).toEqual([
      "mx",
      "null-mx",
      undefined,
    ]);
    expect(cache.get("b.org", 150)).toBeUndefined();
    expect(cache.get("a.org", 999)?.kind).toBe("mx");
    expect(cache.get("a.org", 1000)).toBeUndefined();
  });

  test("at most its size: the oldest entry goes first", () => {
    const cache = new MailRouteCache(3, ttls);
    for (const name of ["a", "b", "c", "d"]) cache.set(`${name}.org`, servers, 0);
    expect(cache.size).toBe(3);
    expect(cache.get("a.org", 1)).toBeUndefined();
    expect(cache.get("d.org", 1)?.kind).toBe("mx");
  });
});

test("mailInfrastructure of nothing is empty", () => {
  expect(mailInfrastructure([], () => null)).toMatchObject({ observed: 0 });
  expect(mailInfrastructure([], () => null).hosts.size).toBe(0);
});
