/**
 * What the mail evidence asks of DNS: the port it reads the network through. `src/dns/`
 * answers it with a resolver (node:dns); the tests answer it with a fake or a loopback server.
 */

/** One answer: the records; none (no such name, or no records of the type); or a failure (SERVFAIL, no answer in time, refused). */
export type DnsAnswer<T> = { readonly records: readonly T[] } | { readonly none: true } | { readonly failed: string };

export interface MxRecord {
  /** The mail server's name as published; "" (or ".") for a null MX (RFC 7505). */
  readonly exchange: string;
  readonly priority: number;
}

export interface MailDns {
  mx(domain: string): Promise<DnsAnswer<MxRecord>>;
  /** The host's A and AAAA records together. */
  addresses(host: string): Promise<DnsAnswer<string>>;
  /** Abandons every query in flight: each then answers a failure. */
  close(): void;
}
