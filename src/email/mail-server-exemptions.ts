import { nearest } from "./domain-name.ts";
import { relayServiceOf } from "./relay-services.ts";

/**
 * Mail servers that serve disposable domains among a great many others, so that sharing them
 * says nothing about a domain: the big mailbox providers (hosted business mail included),
 * forwarding services and mail relays, and the security gateways companies put in front of
 * their own mail. A host under one of these domains never counts as disposable mail
 * infrastructure, nor do its addresses. Each with why.
 */
const EXEMPT_MAIL_DOMAINS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    "google.com": "Google's mail servers (Gmail, Google Workspace)",
    "googlemail.com": "Google's mail servers (Gmail, Google Workspace)",
    "outlook.com": "Microsoft's mail servers (Outlook.com, Microsoft 365)",
    "hotmail.com": "Microsoft's mail servers (Outlook.com, Microsoft 365)",
    "yahoodns.net": "Yahoo's mail servers",
    "icloud.com": "Apple's mail servers (iCloud Mail and its custom domains, Hide My Email)",
    "me.com": "Apple's mail servers (iCloud Mail)",
    "zoho.com": "Zoho Mail, hosted business mail",
    "zoho.eu": "Zoho Mail, hosted business mail",
    "zoho.in": "Zoho Mail, hosted business mail",
    "protonmail.ch": "Proton Mail and Proton Pass, and their custom domains",
    "messagingengine.com": "Fastmail and its custom domains",
    "yandex.net": "Yandex Mail and Yandex 360 business mail",
    "yandex.ru": "Yandex Mail and Yandex 360 business mail",
    "mail.ru": "Mail.ru and its business mail",
    "qq.com": "Tencent's QQ Mail and Exmail business mail",
    "gmx.net": "GMX and WEB.DE mailboxes",
    "web.de": "GMX and WEB.DE mailboxes",
    "ionos.com": "IONOS (1&1) hosted mail",
    "1and1.com": "IONOS (1&1) hosted mail",
    "secureserver.net": "GoDaddy's hosted mail",
    "ovh.net": "OVHcloud's hosted mail",
    "gandi.net": "Gandi's hosted mail",
    "privateemail.com": "Namecheap's hosted mail",
    "registrar-servers.com": "Namecheap's mail forwarding, which every Namecheap domain can use",
    "emailsrvr.com": "Rackspace's hosted mail",
    "hostinger.com": "Hostinger's hosted mail",
    "tutanota.de": "Tuta (Tutanota) and its custom domains",
    "amazonaws.com": "Amazon SES and WorkMail inbound servers, shared by every AWS customer",
    "cloudflare.net": "Cloudflare Email Routing, forwarding for any domain on Cloudflare",
    "mailgun.org": "Mailgun, a mail relay for any domain",
    "sendgrid.net": "SendGrid, a mail relay for any domain",
    "improvmx.com": "ImprovMX, forwarding for any domain",
    "forwardemail.net": "Forward Email, forwarding for any domain",
    "pphosted.com": "Proofpoint, a security gateway in front of companies' own mail",
    "mimecast.com": "Mimecast, a security gateway in front of companies' own mail",
    "barracudanetworks.com": "Barracuda, a security gateway in front of companies' own mail",
  }),
);

/** The curated exemptions, for the manual and the tests. */
export const EXEMPT_MAIL_SERVERS: readonly (readonly [string, string])[] = [...EXEMPT_MAIL_DOMAINS];

/**
 * Why `host` (a normalised MX host name) never counts as disposable mail infrastructure, or
 * null when it may: under a curated exempt domain, a privacy relay's domain, or a domain the
 * lists know as a free provider or allowlist (`knownGood` names it: its mail servers are a
 * provider's, whatever disposable domain also points at them).
 */
export function mailServerExemption(host: string, knownGood: (domain: string) => string | null): string | null {
  const curated = nearest(host, (name) => EXEMPT_MAIL_DOMAINS.get(name));
  if (curated !== undefined) return curated;
  const relay = relayServiceOf(host);
  if (relay !== null) return `a privacy relay's mail servers (${relay})`;
  // Stop before the bare top-level label: a host's parent "com" names nothing.
  return nearest(host, (name) => (name.includes(".") ? (knownGood(name) ?? undefined) : undefined)) ?? null;
}

/** The lists' word on a mail server's domain: a free provider's or an allowlisted domain's servers are theirs. */
export function knownGoodMailDomain(lists: {
  readonly free: { has(domain: string): boolean };
  readonly allow: { has(domain: string): boolean };
}): (domain: string) => string | null {
  return (domain) =>
    lists.free.has(domain)
      ? `a free provider's mail servers (${domain})`
      : lists.allow.has(domain)
        ? `an allowlisted domain's mail servers (${domain})`
        : null;
}
