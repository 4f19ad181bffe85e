import { describe, expect, test } from "bun:test";
import { parseEmailAddress } from "../../src/email/address.ts";
import { localPartOf, normalisedAddress } from "../../src/email/normalised-address.ts";
import { isRoleAccount } from "../../src/email/role-accounts.ts";
import { didYouMean, editDistance } from "../../src/email/typo-hint.ts";

const normalised = (address: string) => {
  const domain = parseEmailAddress(address)!.domain;
  return normalisedAddress(localPartOf(address), domain).address;
};

describe("did_you_mean", () => {
  test.each([
    ["gmial.com", "gmail.com"],
    ["gmail.con", "gmail.com"],
    ["gmai.com", "gmail.com"],
    ["hotmial.com", "hotmail.com"],
    ["hotmail.co", "hotmail.com"],
    ["yaho.com", "yahoo.com"],
    ["outlok.com", "outlook.com"],
    ["iclod.com", "icloud.com"],
    ["googlemial.com", "googlemail.com"],
  ])("%s → %s", (domain, expected) => expect(didYouMean(domain)).toBe(expected));

  test.each(["gmail.com", "yahoo.co.uk", "company.com", "mailinator.com", "xn--bcher-kva.de", "gmx.at"])(
    "%s: no hint",
    (domain) => {
      expect(didYouMean(domain)).toBeNull();
    },
  );

  test("a provider known otherwise is no typo of a major one", () => {
    expect(didYouMean("protonmail.ch")).toBe("protonmail.com");
    expect(didYouMean("protonmail.ch", (d) => d === "protonmail.ch")).toBeNull();
  });

  test("edit distance counts a swap of neighbours as one", () => {
    expect(editDistance("gmial", "gmail", 3)).toBe(1);
    expect(editDistance("abc", "xyz", 1)).toBe(2);
  });
});

describe("role_account", () => {
  test.each(["postmaster", "Info", "abuse", "no-reply", "SUPPORT"])("%s is a role", (local) =>
    expect(isRoleAccount(local)).toBe(true),
  );
  test.each(["jane.doe", "informatics", "admin2"])("%s is a person's", (local) =>
    expect(isRoleAccount(local)).toBe(false),
  );
  test("a quoted or sub-addressed role is still one", () => {
    for (const address of ['"info"@example-corp.com', "postmaster+bounces@example-corp.com"]) {
      const domain = parseEmailAddress(address)!.domain;
      expect(isRoleAccount(normalisedAddress(localPartOf(address), domain).local)).toBe(true);
    }
  });
});

describe("normalized", () => {
  test.each([
    ["Some.One+tag@Gmail.COM", "someone@gmail.com"],
    ["s.o.m.e.one@googlemail.com", "someone@gmail.com"],
    ["first.last+news@outlook.com", "first.last@outlook.com"],
    ["First.Last@example-corp.com", "First.Last@example-corp.com"],
    ["+tag@example-corp.com", "+tag@example-corp.com"],
    ['"john"@example-corp.com', "john@example-corp.com"],
    ['"john..doe"@example-corp.com', '"john..doe"@example-corp.com'],
    ['"a\\"b"@example-corp.com', '"a\\"b"@example-corp.com'],
    ["üser+x@bücher.de", "üser@xn--bcher-kva.de"],
    ["user@пример.com", "user@xn--e1afmkfd.com"],
  ])("%s → %s", (address, expected) => expect(normalised(address)).toBe(expected));
});
