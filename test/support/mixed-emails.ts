import { overrideLine } from "../../src/email/overrides.ts";
import type { createTestApp } from "./test-app.ts";

/**
 * Domains whose explanations differ: listed, wildcard and parent-listed, allowlisted (duck.com
 * is also a relay), overridden both ways by OVERRIDES, relays, a typo of a major provider,
 * free, reserved, IDN, unlisted.
 */
const DOMAINS = [
  "gmail.com",
  "mailinator.com",
  "sub.33mail.com",
  "tempmail.dev",
  "duck.com",
  "yahoo.com",
  "privaterelay.appleid.com",
  "mozmail.com",
  "gmial.com",
  "yahooo.com",
  "tuta.io",
  "edu.pl",
  "example.org",
  "пример.com",
  "Mailinator.COM",
  "unlisted-shop.example.net",
];
const LOCAL_PARTS = ["jane", "first.last", "bob+tag", "info", "postmaster", '"quoted local"', "x"];
const INVALID = ["bad@", "not-an-address", "@example.com", "two@@gmail.com"];

/** The override lines the mixed emails meet: a listed domain allowed, a free one denied. */
export const OVERRIDES = [
  { domain: "tempmail.dev", action: "allow", reason: "our partner's staff addresses", author: "ops" },
  { domain: "yahoo.com", action: "deny", reason: "sign-up wave, ticket 4711", author: "ops" },
] as const;

/** `n` email addresses over DOMAINS with a few invalid ones: reproducible. */
export function mixedEmails(n: number): string[] {
  let seed = 2511;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 40 === 7) out.push(INVALID[((i / 40) % INVALID.length) | 0]);
    else out.push(`${LOCAL_PARTS[Math.floor(random() * LOCAL_PARTS.length)]}@${DOMAINS[i % DOMAINS.length]}`);
  }
  return out;
}

/** Puts OVERRIDES into the app's database and has the app read them, as its periodic re-read does. */
export async function putOverrides(t: Awaited<ReturnType<typeof createTestApp>>): Promise<void> {
  for (const line of OVERRIDES) await t.stores.emailOverrides.put(overrideLine(line, new Date()));
  await t.emailOverrides.refresh();
}
