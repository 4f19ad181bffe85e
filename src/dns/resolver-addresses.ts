/** The resolvers DNS evidence asks: these addresses (as `ip`, `ip:port`, `[ipv6]:port`), or the system's own (/etc/resolv.conf). */
export type ResolverAddresses = readonly string[] | "system";

/**
 * `127.0.0.1`, `10.0.0.2:5353`, `[2001:db8::53]:53`, `2001:db8::53`, comma-separated, or
 * `system`: the addresses as node:dns takes them, or what is wrong.
 */
export function parseResolverAddresses(text: string): ResolverAddresses | { readonly problem: string } {
  if (text.trim() === "system") return "system";
  const { isIP } = process.getBuiltinModule("node:net");
  const addresses: string[] = [];
  for (const part of text.split(",").map((p) => p.trim())) {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(part);
    const v4 = /^([\d.]+)(?::(\d+))?$/.exec(part);
    const [host, port] = bracketed ? [bracketed[1], bracketed[2]] : v4 ? [v4[1], v4[2]] : [part, undefined];
    if (isIP(host) === 0)
      return {
        problem: `"${part}" is not a resolver's address: give an IP address, IP:PORT or [IPv6]:PORT, or system`,
      };
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
      return { problem: `"${part}": the port must be 1 to 65535` };
    const ip = isIP(host) === 6 ? `[${host}]` : host;
    addresses.push(port === undefined ? host : `${ip}:${port}`);
  }
  return addresses;
}
