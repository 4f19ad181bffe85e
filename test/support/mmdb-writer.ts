import { Reader } from "maxmind";

/**
 * A small IPv4 MaxMind DB written here: the networks of a few addresses, each with its record
 * as a real database has it. For tests about what `update` does with an MMDB source (fetch,
 * check, compile, serve), where the full bundled city data (3.7 million networks, seconds of
 * compile each time) is not the subject. Writes the format's maps, strings, doubles and
 * unsigned integers: what the flat ip-location-db records hold.
 */
export function excerptMmdb(source: Uint8Array, addresses: readonly string[]): Uint8Array {
  const reader = new Reader<Record<string, unknown>>(Buffer.from(source));
  const networks = new Map<string, { start: number; prefix: number; record: Record<string, unknown> }>();
  for (const address of addresses) {
    const [record, prefix] = reader.getWithPrefixLength(address);
    if (record === null) throw new Error(`${address} is not in the source database`);
    const start = prefix === 0 ? 0 : (ipv4Number(address) >>> (32 - prefix)) << (32 - prefix);
    networks.set(`${start}/${prefix}`, { start: start >>> 0, prefix, record });
  }
  return writeIpv4Mmdb([...networks.values()], reader.metadata.databaseType);
}

function ipv4Number(address: string): number {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255)))
    throw new Error(`${address}: not an IPv4 address`);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

type Child = { node: number } | { data: number } | null;

function writeIpv4Mmdb(
  networks: readonly { start: number; prefix: number; record: Record<string, unknown> }[],
  databaseType: string,
): Uint8Array {
  const nodes: [Child, Child][] = [[null, null]];
  const data: number[] = [];
  for (const { start, prefix, record } of networks) {
    if (prefix === 0) throw new Error("a network of prefix 0 has no place in the tree");
    const offset = data.length;
    data.push(...encode(record));
    let node = 0;
    for (let depth = 0; depth < prefix; depth++) {
      const bit = (start >>> (31 - depth)) & 1;
      const child = nodes[node][bit];
      if (depth === prefix - 1) {
        if (child !== null) throw new Error(`networks overlap at ${start}/${prefix}`);
        nodes[node][bit] = { data: offset };
      } else if (child === null) {
        nodes[node][bit] = { node: nodes.push([null, null]) - 1 };
        node = nodes.length - 1;
      } else if ("node" in child) node = child.node;
      else throw new Error(`networks overlap at ${start}/${prefix}`);
    }
  }
  const count = nodes.length;
  const value = (child: Child) => (child === null ? count : "node" in child ? child.node : count + 16 + child.data);
  const tree = new Uint8Array(count * 6);
  nodes.forEach(([left, right], i) => {
    for (const [at, v] of [
      [i * 6, value(left)],
      [i * 6 + 3, value(right)],
    ])
      tree.set([(v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff], at);
  });
  const metadata = encode({
    node_count: { uint32: count },
    record_size: { uint16: 24 },
    ip_version: { uint16: 4 },
    database_type: databaseType,
    languages: { array: [] },
    binary_format_major_version: { uint16: 2 },
    binary_format_minor_version: { uint16: 0 },
    build_epoch: { uint64: 1_790_000_000n },
    description: { en: "an excerpt written by the riskcheck tests" },
  });
  const marker = Buffer.from("\xab\xcd\xefMaxMind.com", "latin1");
  return Buffer.concat([tree, new Uint8Array(16), Uint8Array.from(data), marker, Uint8Array.from(metadata)]);
}

type Typed = { uint16: number } | { uint32: number } | { uint64: bigint } | { array: unknown[] };

/** The MaxMind DB data section encoding of a value (spec section "Output Data Section"). */
function encode(value: unknown): number[] {
  if (typeof value === "string") {
    const bytes = [...new TextEncoder().encode(value)];
    return [...control(2, bytes.length), ...bytes];
  }
  if (typeof value === "number") {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value);
    return [...control(3, 8), ...bytes];
  }
  if (value !== null && typeof value === "object") {
    if ("uint16" in value) return [...control(5, 2), ...bigEndian(BigInt((value as { uint16: number }).uint16), 2)];
    if ("uint32" in value) return [...control(6, 4), ...bigEndian(BigInt((value as { uint32: number }).uint32), 4)];
    if ("uint64" in value) return [...control(9, 8), ...bigEndian((value as { uint64: bigint }).uint64, 8)];
    if ("array" in value) {
      const items = (value as { array: unknown[] }).array;
      return [...control(11, items.length), ...items.flatMap(encode)];
    }
    const entries = Object.entries(value as Exclude<Record<string, unknown>, Typed>);
    return [...control(7, entries.length), ...entries.flatMap(([k, v]) => [...encode(k), ...encode(v)])];
  }
  throw new Error(`no MMDB encoding for ${JSON.stringify(value)}`);
}

/** A control byte (and the extended type's byte after it) with the size in the spec's widths. */
function control(type: number, size: number): number[] {
  const head = type <= 7 ? [type << 5] : [0, type - 7];
  const sized =
    size < 29
      ? [size]
      : size < 285
        ? [29, size - 29]
        : size < 65_821
          ? [30, (size - 285) >> 8, (size - 285) & 0xff]
          : [31, ((size - 65_821) >> 16) & 0xff, ((size - 65_821) >> 8) & 0xff, (size - 65_821) & 0xff];
  head[0] |= sized[0];
  return type <= 7 ? [head[0], ...sized.slice(1)] : [head[0], head[1], ...sized.slice(1)];
}

function bigEndian(value: bigint, bytes: number): number[] {
  return Array.from({ length: bytes }, (_, i) => Number((value >> BigInt(8 * (bytes - 1 - i))) & 0xffn));
}
