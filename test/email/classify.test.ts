import { describe, expect, test } from "bun:test";
import { classifyDomain } from "../../src/email/classify.ts";
import { buildDomainLists, parseDomainListText } from "../../src/email/domain-lists.ts";

const fixture = (overrides: Partial<Parameters<typeof buildDomainLists>[0]> = {}) =>
  buildDomainLists({
    disposable: ["mailinator.com", "edu.pl", "github.io", "пример.com", "Temp-Mail.ORG"],
    disposableWildcard: ["33mail.com"],
    free: [
      "gmail.com",
      "mailinator.com",
      "co.uk",
      "example.com",
      "mail.example.net",
      "foo.test",
      "me.localhost",
      "yahoo.co.uk",
    ],
    freeSupplement: [],
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
    expect(verdict("wikipedia.org", lists).isDisposable).toBe(false);
  });

  test.each(["example.com", "mail.example.net", "example.co.uk", "foo.test", "a.invalid", "me.localhost"])(
    "the reserved name %s is disposable: an address there can never receive mail",
    (domain) => {
      expect(verdict(domain)).toEqual({ isDisposable: true, isFree: false });
    },
  );
  test("names that merely contain 'example' are not reserved", () => {
    expect(verdict("example-shop.com").isDisposable).toBe(false);
    expect(verdict("myexample.org").isDisposable).toBe(false);
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
      freeSupplement: [],
      allow: [],
    });
    expect(lists.disposable.size).toBe(2);
    expect(["good.com", "wild.com", "GOOD.com", "*.wild.com"].map((d) => lists.disposable.has(d))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(dropped).toEqual({ disposable: 4, disposableWildcard: 0, free: 1, freeSupplement: 0, allow: 0 });
  });
  test("text lists skip comments and blank lines", () => {
    expect(parseDomainListText("# head\n\na.com\n  b.com  # note\r\n#c.com\n")).toEqual(["a.com", "b.com"]);
  });
});

describe("free = consumer mailbox providers only", () => {
  const build = () =>
    buildDomainLists({
      disposable: ["mailinator.com", "burner.example.org", "co.uk"],
      disposableWildcard: ["33mail.com"],
      free: [
        "gmail.com",
        "mailinator.com",
        "x.33mail.com",
        "10minutemail.info",
        "temp-mail.net",
        "trash-mail.net",
        "throwawayemail.com",
        "spamgourmet.com",
        "disposableemail.org",
        "tempo.com.br",
        "contemporary.com",
        "minutes.co",
        "co.uk",
        "example.com",
        "mail.bcu.ac.uk",
      ],
      freeSupplement: ["tuta.io", "sohu.com"],
      allow: ["spamgourmet.com"],
    });

  test("no free name is disposable, by any rule of the disposable check", () => {
    const { lists } = build();
    expect(lists.free.has("mailinator.com")).toBe(false);
    expect(lists.free.has("x.33mail.com")).toBe(false);
  });
  test.each(["10minutemail.info", "temp-mail.net", "trash-mail.net", "throwawayemail.com", "disposableemail.org"])(
    "%s reads like a throwaway service: not free",
    (domain) => {
      expect(build().lists.free.has(domain)).toBe(false);
    },
  );
  test.each(["gmail.com", "tempo.com.br", "contemporary.com", "minutes.co"])(
    "%s is kept: the words are not whole-service names",
    (domain) => {
      expect(build().lists.free.has(domain)).toBe(true);
    },
  );
  test("a university's mail domain is an institution's, not a free provider", () => {
    expect(build().lists.free.has("mail.bcu.ac.uk")).toBe(false);
  });
  test("an allowlisted name keeps its place whatever it reads like; the supplement adds providers", () => {
    const { lists } = build();
    expect(lists.free.has("spamgourmet.com")).toBe(true);
    expect(lists.free.has("tuta.io") && lists.free.has("sohu.com")).toBe(true);
  });
  test("the report counts what was left out, and why", () => {
    expect(build().free).toEqual({
      candidates: 17,
      kept: 7,
      disposable: 2,
      throwawayName: 5,
      suffixOrReserved: 2,
      institutional: 1,
    });
  });
});
