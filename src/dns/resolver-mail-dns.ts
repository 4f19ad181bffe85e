import type { DnsAnswer, MailDns, MxRecord } from "../email/mail-dns.ts";
import type { ResolverAddresses } from "./resolver-addresses.ts";

/**
 * How long the resolver waits for one answer, and how often it asks: this bounds a lookup that
 * outlives the check's budget (it goes on to fill the cache), not the check. Bun's resolver
 * counts its timeout in whole seconds.
 */
const QUERY_TIMEOUT_MS = 1_000;
const QUERY_TRIES = 2;

/** Codes that mean the name has no such records, or does not exist (Bun gives ENOTFOUND for both): an answer, not a failure. */
const NO_RECORDS = new Set(["ENODATA", "ENOTFOUND"]);

/** The mail evidence's DNS port, answered by node:dns over the given resolvers. */
export function resolverMailDns(resolvers: ResolverAddresses): MailDns {
  const { Resolver } = process.getBuiltinModule("node:dns/promises");
  const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  if (resolvers !== "system") resolver.setServers([...resolvers]);
  return {
    mx: (domain) => answered<MxRecord>(resolver.resolveMx(domain)),
    async addresses(host) {
      const [v4, v6] = await Promise.all([answered(resolver.resolve4(host)), answered(resolver.resolve6(host))]);
      const records = [...("records" in v4 ? v4.records : []), ...("records" in v6 ? v6.records : [])];
      if (records.length > 0) return { records };
      return "failed" in v4 ? v4 : "failed" in v6 ? v6 : { none: true };
    },
    close: () => resolver.cancel(),
  };
}

async function answered<T>(query: Promise<T[]>): Promise<DnsAnswer<T>> {
  try {
    return { records: await query };
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    return NO_RECORDS.has(code) ? { none: true } : { failed: code || (err as Error).message };
  }
}
