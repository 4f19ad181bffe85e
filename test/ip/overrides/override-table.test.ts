import { describe, expect, test } from "bun:test";
import { parseIpAddress } from "../../../src/ip/address/parse.ts";
import { type OverrideInForce, OverrideTable } from "../../../src/ip/overrides/override-table.ts";

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
  const table = new OverrideTable([
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
    const reversed = new OverrideTable([
      line("198.51.100.77", "allow"),
      line("198.51.100.0/24", "deny"),
      line("198.51.100.0/22", "allow"),
    ]);
    expect(decides(reversed, "198.51.100.77")).toBe("198.51.100.77");
    expect(decides(reversed, "198.51.100.1")).toBe("198.51.100.0/24");
  });

  test("at the same target a database line beats the allowlist file's", () => {
    const both = new OverrideTable([
      line("192.0.2.0/24", "allow", "allowlist-file"),
      line("192.0.2.0/24", "deny"),
      line("AS64501", "allow", "allowlist-file"),
    ]);
    expect(both.lookup(parseIpAddress("192.0.2.9")!, 0)).toMatchObject({ action: "deny", source: "database" });
    const fileAfter = new OverrideTable([
      line("192.0.2.0/24", "deny"),
      line("192.0.2.0/24", "allow", "allowlist-file"),
    ]);
    expect(fileAfter.lookup(parseIpAddress("192.0.2.9")!, 0)).toMatchObject({ action: "deny", source: "database" });
  });

  test("a row edited by hand out of the kept form decides nothing, and keeps the others deciding", () => {
    const edited = new OverrideTable([
      line("not an address", "deny"),
      line("ASx", "deny"),
      line("192.0.2.0/24", "allow"),
    ]);
    expect(decides(edited, "192.0.2.1", 64500)).toBe("192.0.2.0/24");
    expect(decides(edited, "198.51.100.1", 64500)).toBeNull();
  });

  test("an empty table decides nothing", () => {
    expect(new OverrideTable([]).lookup(parseIpAddress("192.0.2.1")!, 15169)).toBeNull();
  });
});
