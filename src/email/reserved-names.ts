import { domainWithoutSuffix } from "./public-suffix.ts";

const RESERVED_TLDS = new Set(["test", "example", "invalid", "localhost"]);

/**
 * RFC 2606 and RFC 6761 names (`example.com`, `*.test`, `*.invalid`, `localhost`), where
 * no address can ever receive mail. `domain` is normalised (lower-case ASCII).
 */
export function isReserved(domain: string): boolean {
  const tld = domain.slice(domain.lastIndexOf(".") + 1);
  // The public-suffix lookup only for names that can be example.<suffix>.
  return RESERVED_TLDS.has(tld) || (domain.includes("example.") && domainWithoutSuffix(domain) === "example");
}
