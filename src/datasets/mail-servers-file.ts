import type { MailObservation } from "../email/mail-infrastructure.ts";

const HEADER =
  "# riskcheck update: each known disposable domain's mail servers as resolved: " +
  "domain, when (Unix seconds), MX hosts, their public addresses\n";

/** One `domain<TAB>seconds<TAB>host,host<TAB>address,address` a line; a line that does not read so is skipped. */
export function parseMailServersFile(text: string): MailObservation[] {
  const observations: MailObservation[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [domain, at, hosts, addresses] = line.split("\t", 4);
    const resolvedAt = Number(at);
    if (!domain || !Number.isInteger(resolvedAt) || hosts === undefined || addresses === undefined) continue;
    observations.push({ domain, resolvedAt, hosts: listOf(hosts), addresses: listOf(addresses) });
  }
  return observations;
}

export function mailServersText(observations: readonly MailObservation[]): string {
  let text = HEADER;
  for (const o of observations)
    text += `${o.domain}\t${o.resolvedAt}\t${o.hosts.join(",")}\t${o.addresses.join(",")}\n`;
  return text;
}

function listOf(field: string): string[] {
  return field === "" ? [] : field.split(",");
}
