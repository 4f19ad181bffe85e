import { readFileSync } from "node:fs";
import { dataFiles } from "../src/datasets/data-layout.ts";
import { normaliseDomain } from "../src/email/domain-name.ts";
import { parseIpAddress } from "../src/ip/address/parse.ts";
import { isGlobalUnicast } from "../src/ip/address/special-purpose.ts";

/** Random global-unicast addresses, four IPv4 to one IPv6, so no cache can hide a lookup. */
export function makeAddressPool(size: number): string[] {
  const pool: string[] = [];
  while (pool.length < size) {
    const text = pool.length % 5 === 4 ? randomIPv6() : randomIPv4();
    const parsed = parseIpAddress(text);
    if (parsed && isGlobalUnicast(parsed)) pool.push(text);
  }
  return pool;
}

function randomIPv4(): string {
  return Array.from({ length: 4 }, () => Math.floor(Math.random() * 256)).join(".");
}

function randomIPv6(): string {
  // Inside 2000::/4, where nearly all allocated space is.
  const groups = Array.from({ length: 8 }, () => Math.floor(Math.random() * 0x10000).toString(16));
  groups[0] = (0x2000 + Math.floor(Math.random() * 0x1000)).toString(16);
  return groups.join(":");
}

/** Real domains: disposable, free, corporate and subdomains of each, with varied local parts. */
export function makeEmailPool(dataDir: string, size: number): string[] {
  const files = dataFiles(dataDir);
  const list = (file: string) =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l && !l.startsWith("#") && normaliseDomain(l) !== null); // a few list entries are not domains
  const disposable = list(files.disposableDomains);
  const free = list(files.freeDomains);
  const corporate = [
    "stripe.com",
    "shopify.com",
    "siemens.de",
    "toyota.co.jp",
    "bbc.co.uk",
    "uw.edu.pl",
    "mit.edu",
    "airbus.com",
    "nestle.ch",
    "ikea.se",
  ];
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const pool: string[] = [];
  for (let i = 0; i < size; i++) {
    const domain = [pick(disposable), pick(free), pick(corporate)][i % 3];
    const sub = i % 7 === 0 ? `mail.${domain}` : domain;
    pool.push(`user${i}${i % 5 === 0 ? "+tag" : ""}@${sub}`);
  }
  return pool;
}
