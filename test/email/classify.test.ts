import { describe, expect, test } from "bun:test";
import { classifyDomain } from "../../src/email/classify.ts";
import { buildDomainLists, parseDomainListText } from "../../src/email/domain-lists.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const fixture = (overrides: Partial<Parameters<typeof buildDomainLists>[0]> = {}) =>
  buildDomainLists({
    disposable: ["mailinator.com", "edu.pl", "github.io", "пример.com", "Temp-Mail.ORG"],
    disposableWildcard: ["33mail.com"],
    free: ["gmail.com", "mailinator.com", "co.uk", "example.com", "mail.example.net", "foo.test", "me.localhost", "yahoo.co.uk"],
    allow: ["relay.mailinator.com"],
    ...overrides,
  }).lists;

const verdict = (domain: string, lists = fixture()) => classifyDomain(lists, domain);

describe("disposable: exact, wildcard and parent matches", () => {
  test.each([
    ["mailinator.com", true],
    ["x.mailinator.com", true],
    ["a.b.mailinator.com", true],
    ["33mail.com", true],
    ["alias.33mail.com", true],
    ["temp-mail.org", true],
    ["notmailinator.com", false],
    ["mailinator.com.evil.org", false],
    ["mailinator.co", false],
    ["com", false],
    ["gmail.com", false],
  ])("%s → %p", (domain, disposable) => {
    expect(verdict(domain).isDisposable).toBe(disposable);
  });

  test("a listed public suffix flags itself only, never the names under it", () => {
    expect(verdict("edu.pl").isDisposable).toBe(true);
    expect(verdict("uw.edu.pl").isDisposable).toBe(false);
    expect(verdict("someone.github.io").isDisposable).toBe(false);
  });

  test("the bare TLD never matches, even when a list carries it", () => {
    const lists = fixture({ disposable: ["com"], disposableWildcard: ["org"] });
    expect(verdict("gmail.com", lists).isDisposable).toBe(false);
    expect(verdict("example.org", lists).isDisposable).toBe(false);
  });

  test("IDN entries and input match in punycode", () => {
    expect(verdict("xn--e1afmkfd.com").isDisposable).toBe(true);
    expect(verdict("sub.xn--e1afmkfd.com").isDisposable).toBe(true);
  });
});

describe("the allowlist beats every list and covers subdomains", () => {
  test.each([
    ["relay.mailinator.com", false],
    ["x.relay.mailinator.com", false],
    ["other.mailinator.com", true],
  ])("%s → disposable %p", (domain, disposable) => {
    expect(verdict(domain).isDisposable).toBe(disposable);
  });
  test("an allowlisted wildcard domain", () => {
    const lists = fixture({ allow: ["33mail.com"] });
    expect(verdict("alias.33mail.com", lists).isDisposable).toBe(false);
  });
});

describe("free providers", () => {
  test.each([
    ["gmail.com", true],
    ["mail.gmail.com", false],
    ["yahoo.co.uk", true],
    ["mailinator.com", false],
    ["co.uk", false],
    ["example.com", false],
    ["mail.example.net", false],
    ["foo.test", false],
    ["me.localhost", false],
  ])("%s → %p", (domain, free) => {
    expect(verdict(domain).isFree).toBe(free);
  });
  test("disposable wins over free", () => {
    expect(verdict("mailinator.com")).toEqual({ isDisposable: true, isFree: false });
  });
});

describe("list loading", () => {
  test("normalises entries and counts those that are not domains", () => {
    const { lists, dropped } = buildDomainLists({
      disposable: ["GOOD.com", "*.wild.com", "bad domain", "1.2.3.4", "", "x"],
      disposableWildcard: [],
      free: ["ok.org", "no_underscore.org"],
      allow: [],
    });
    expect(lists.disposable.size).toBe(2);
    expect(["good.com", "wild.com", "GOOD.com", "*.wild.com"].map((d) => lists.disposable.has(d))).toEqual([true, true, false, false]);
    expect(dropped).toEqual({ disposable: 4, disposableWildcard: 0, free: 1, allow: 0 });
  });
  test("text lists skip comments and blank lines", () => {
    expect(parseDomainListText("# head\n\na.com\n  b.com  # note\r\n#c.com\n")).toEqual(["a.com", "b.com"]);
  });
});

describe("the bundled lists", () => {
  const json = (path: string): string[] => JSON.parse(readFileSync(resolve(import.meta.dir, "../../node_modules", path), "utf8"));
  const raw = { disposable: json("disposable-email-domains/index.json"), disposableWildcard: json("disposable-email-domains/wildcard.json"), free: json("email-providers/all.json") };
  test("classify well-known domains", async () => {
    const text = await Bun.file(resolve(import.meta.dir, "../../data/email/allowlist.txt")).text();
    const { lists } = buildDomainLists({ ...raw, allow: parseDomainListText(text) });
    expect(classifyDomain(lists, "mailinator.com")).toEqual({ isDisposable: true, isFree: false });
    expect(classifyDomain(lists, "x.mailinator.com").isDisposable).toBe(true);
    expect(classifyDomain(lists, "gmail.com")).toEqual({ isDisposable: false, isFree: true });
    expect(classifyDomain(lists, "spamgourmet.com").isDisposable).toBe(false);
    expect(classifyDomain(lists, "anonaddy.me").isDisposable).toBe(false);
  });
});
