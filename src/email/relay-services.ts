import { nearest } from "./domain-name.ts";

/**
 * Privacy relays: addresses made on demand that forward to a person's real, long-lived
 * inbox. Never disposable; `explain` names the service. A relay's users also get
 * addresses under these domains (`alias@name.anonaddy.com`), so parents count.
 */
const RELAY_SERVICES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    "privaterelay.appleid.com": "Apple Hide My Email",
    "mozmail.com": "Firefox Relay",
    "simplelogin.com": "SimpleLogin",
    "simplelogin.co": "SimpleLogin",
    "aleeas.com": "SimpleLogin",
    "slmail.me": "SimpleLogin",
    "passmail.net": "Proton Pass",
    "passinbox.com": "Proton Pass",
    "duck.com": "DuckDuckGo Email Protection",
    "addy.io": "addy.io",
    "anonaddy.com": "addy.io",
    "anonaddy.me": "addy.io",
  }),
);

export const RELAY_DOMAINS: readonly string[] = [...RELAY_SERVICES.keys()];

/** The relay service `domain` belongs to, or null. */
export function relayServiceOf(domain: string): string | null {
  return nearest(domain, (name) => RELAY_SERVICES.get(name)) ?? null;
}
