import { resolverMailDns } from "../dns/resolver-mail-dns.ts";
import { MailEvidence } from "../email/mail-evidence.ts";
import type { Config } from "./config.ts";

/** The email check's DNS evidence as configured (RISKCHECK_DNS_*), or null when no resolver is set: then nothing asks the network. */
export function openMailEvidence(dns: Config["dns"]): MailEvidence | null {
  if (dns.resolvers === null) return null;
  return new MailEvidence(resolverMailDns(dns.resolvers), dns);
}
