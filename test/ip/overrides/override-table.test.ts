import { describe, expect, test } from "bun:test";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { OverrideTable } from "../../../src/ip/overrides/override-table.ts";
import { type OverrideInForce, OverrideLines } from "../../../src/ip/overrides/override-lines.ts";

const line = (
  target: string,
  action: "allow" | "deny",
  source: OverrideInForce["source"] = "database",
): OverrideInForce => ({
  target,
  action,
  reason: `why ${target}`,
  author: "ops",
  created: "2026-11-25T12:00:00.000Z",
  until: null,
  source,
});
const decides = (table: OverrideTable, address: string, asn = 0) =>
  table.lookup(parseIpAddress(address)!, asn)?.target ?? null;

describe("the override table", () => {
  const table = OverrideTable.of([
    line("AS64500", "deny"),
    line("198.51.100.0/22", "allow"),
    line("198.51.100.0/24", "deny"),
    line("198.51.100.77", "allow"),
    line("2001:db8::/32", "deny"),
    line("2001:db8:1::/48", "allow"),
    line("2001:db8:1::5", "deny"),
  ]);

  test("the most specific line decides: an address over a range, a longer prefix over a shorter, a range over a network", () => {
    expect(decides(table, "198.51.100.77", 64500)).toBe("198.51.100.77");
    expect(decides(table, "198.51.100.78", 64500)).toBe("198.51.100.0/24");
    expect(decides(table, "198.51.101.1", 64500)).toBe("198.51.100.0/22");
    expect(decides(table, "203.0.113.1", 64500)).toBe("AS64500");
    expect(decides(table, "203.0.113.1", 64501)).toBeNull();
    expect(decides(table, "203.0.113.1")).toBeNull();
    expect(decides(table, "2001:db8:1::5")).toBe("2001:db8:1::5");
    expect(decides(table, "2001:db8:1::6")).toBe("2001:db8:1::/48");
    expect(decides(table, "2001:db8:2::1")).toBe("2001:db8::/32");
    expect(decides(table, "2001:db9::1")).toBeNull();
  });

  test("the order lines come in changes nothing", () => {
    const reversed = OverrideTable.of([
      line("198.51.100.77", "allow"),
      line("198.51.100.0/24", "deny"),
      line("198.51.100.0/22", "allow"),
    ]);
    expect(decides(reversed, "198.51.100.77")).toBe("198.51.100.77");
    expect(decides(reversed, "198.51.100.1")).toBe("198.51.100.0/24");
  });

  test("at the same target a database line beats the allowlist file's", () => {
    const both = OverrideTable.of([
      line("192.0.2.0/24", "allow", "allowlist-file"),
      line("192.0.2.0/24", "deny"),
      line("AS64501", "allow", "allowlist-file"),
    ]);
    expect(both.lookup(parseIpAddress("192.0.2.9")!, 0)).toMatchObject({ action: "deny", source: "database" });
    const fileAfter = OverrideTable.of([line("192.0.2.0/24", "deny"), line("192.0.2.0/24", "allow", "allowlist-file")]);
    expect(fileAfter.lookup(parseIpAddress("192.0.2.9")!, 0)).toMatchObject({ action: "deny", source: "database" });
  });

  test("a row edited by hand out of the kept form decides nothing, and keeps the others deciding", () => {
    const edited = OverrideTable.of([
      line("not an address", "deny"),
      line("ASx", "deny"),
      line("192.0.2.0/24", "allow"),
    ]);
    expect(decides(edited, "192.0.2.1", 64500)).toBe("192.0.2.0/24");
    expect(decides(edited, "198.51.100.1", 64500)).toBeNull();
  });

  test("an empty table decides nothing", () => {
    expect(OverrideTable.of([]).lookup(parseIpAddress("192.0.2.1")!, 15169)).toBeNull();
  });

  test("a range broader than /8 (/16 of IPv6), which only --force stores, gives way to an AS line; a /8 does not", () => {
    const table = OverrideTable.of([
      line("0.0.0.0/0", "allow"),
      line("80.0.0.0/7", "deny"),
      line("8.0.0.0/8", "allow"),
      line("AS15169", "deny"),
      line("::/0", "allow"),
      line("2a00:1450::/32", "deny"),
    ]);
    expect(decides(table, "8.8.8.8", 15169)).toBe("8.0.0.0/8");
    expect(decides(table, "9.9.9.9", 15169)).toBe("AS15169");
    expect(decides(table, "9.9.9.9", 19281)).toBe("0.0.0.0/0");
    expect(decides(table, "81.2.69.1", 15169)).toBe("AS15169");
    expect(decides(table, "81.2.69.1", 0)).toBe("80.0.0.0/7");
    expect(decides(table, "2a00:1450::1", 15169)).toBe("2a00:1450::/32");
    expect(decides(table, "2a01::1", 15169)).toBe("AS15169");
    expect(decides(table, "2a01::1", 0)).toBe("::/0");
  });

  test("the database's lines change in place, a line at a time, and every table sharing them sees it", () => {
    const live = new OverrideLines();
    const file = OverrideTable.of([line("81.2.69.0/24", "allow", "allowlist-file")]);
    const table = file.withDatabase(live);
    expect(decides(table, "81.2.69.9")).toBe("81.2.69.0/24");
    live.set(line("81.2.69.9", "deny"));
    live.set(line("2a00:1450:4001::/48", "deny"));
    live.set(line("2a00:1450:4002::/48", "allow"));
    expect(table.lookup(parseIpAddress("81.2.69.9")!, 0)).toMatchObject({ action: "deny", source: "database" });
    expect(decides(table, "2a00:1450:4001::1")).toBe("2a00:1450:4001::/48");
    expect(decides(table, "2a00:1450:4002::1")).toBe("2a00:1450:4002::/48");
    live.set({ ...line("81.2.69.9", "allow"), reason: "replaced" });
    expect(table.lookup(parseIpAddress("81.2.69.9")!, 0)?.reason).toBe("replaced");
    expect(live.size).toBe(3);
    live.delete("81.2.69.9");
    live.delete("2a00:1450:4001::/48");
    expect(decides(table, "81.2.69.9")).toBe("81.2.69.0/24");
    expect(decides(table, "2a00:1450:4001::1")).toBeNull();
    expect(decides(table, "2a00:1450:4002::1")).toBe("2a00:1450:4002::/48");
    live.clear();
    expect([live.size, decides(table, "2a00:1450:4002::1")]).toEqual([0, null]);
  });

  test("the same answers as a scan of every line, over many random lines and addresses", () => {
    let seed = 7;
    const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed);
    const lines: OverrideInForce[] = [];
    for (let i = 0; i < 500; i++) {
      const length = 8 + (next() % 25);
      const network = (next() & (length === 32 ? -1 : ~(0xffffffff >>> length))) >>> 0;
      const text = [network >>> 24, (network >>> 16) & 255, (network >>> 8) & 255, network & 255].join(".");
      lines.push(line(length === 32 ? text : `${text}/${length}`, i % 2 ? "allow" : "deny"));
    }
    const table = OverrideTable.of(lines);
    const networks = lines.map((l) => {
      const [text, bits = "32"] = l.target.split("/");
      return { target: l.target, v4: (parseIpAddress(text) as { v4: number }).v4, length: Number(bits) };
    });
    const byLength = [...networks].sort((a, b) => b.length - a.length);
    for (let i = 0; i < 3_000; i++) {
      // Half the addresses inside a line's network, half anywhere.
      const address = (i % 2 === 0 ? networks[i % networks.length].v4 + (next() & 0xff) : next()) >>> 0;
      const text = [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join(".");
      const expected = byLength.find((n) => address >>> (32 - n.length) === n.v4 >>> (32 - n.length) || n.length === 0);
      expect([text, decides(table, text)]).toEqual([text, expected?.target ?? null]);
    }
  });
});
