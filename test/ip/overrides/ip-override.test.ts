import { describe, expect, test } from "bun:test";
import { OverrideError } from "../../../src/email/overrides.ts";
import { ipOverrideLine, ipOverrideTarget, rangeForced } from "../../../src/ip/overrides/ip-override.ts";

const NOW = new Date(Date.UTC(2026, 10, 25, 12));

describe("an IP override line's target", () => {
  test.each([
    ["203.0.113.7", "address", "203.0.113.7"],
    [" 203.0.113.0/24 ", "range", "203.0.113.0/24"],
    ["203.0.113.7/32", "address", "203.0.113.7"],
    ["2001:DB8:0:0::/32", "range", "2001:db8::/32"],
    ["2001:db8::0001", "address", "2001:db8::1"],
    ["::ffff:203.0.113.9", "address", "203.0.113.9"],
    ["0.0.0.0/0", "range", "0.0.0.0/0"],
    ["as15169", "asn", "AS15169"],
    ["AS4294967295", "asn", "AS4294967295"],
  ])("%s is a %s, kept as %s", (input, kind, text) => {
    expect(ipOverrideTarget(input)).toMatchObject({ kind, text });
  });

  test.each([
    ["203.0.113.7/24", /host bits set: the range is 203.0.113.0\/24/],
    ["2001:db8::1/32", /host bits set: the range is 2001:db8::\/32/],
    ["203.0.113.0/33", /not an IP address, a CIDR range or an AS number/],
    ["203.0.113", /not an IP address/],
    ["010.0.0.1", /not an IP address/],
    ["example.com", /not an IP address/],
    ["AS0", /not an AS number/],
    ["AS4294967296", /not an AS number/],
    ["AS015169", /not an AS number/],
    ["", /not an IP address/],
  ])("%j is refused: %s", (input, message) => {
    let error: unknown;
    try {
      ipOverrideTarget(input);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OverrideError);
    expect((error as OverrideError).code).toBe("invalid_target");
    expect((error as Error).message).toMatch(message);
  });
});

describe("an IP override line", () => {
  test("keeps the target's form, the reason trimmed, and reads --until as the email lines do (the day included)", () => {
    expect(
      ipOverrideLine(
        { target: "2A00:1450::/48", action: "deny", reason: " wave ", author: "jane", until: "2026-12-31" },
        NOW,
      ),
    ).toEqual({
      target: "2a00:1450::/48",
      action: "deny",
      reason: "wave",
      author: "jane",
      created: NOW.toISOString(),
      until: "2027-01-01T00:00:00.000Z",
    });
  });

  test.each([
    ["invalid_target", { target: "nope" }],
    ["missing_reason", { reason: "  " }],
    ["invalid_reason", { reason: "x".repeat(501) }],
    ["until_passed", { until: "2026-11-24" }],
    ["invalid_until", { until: "soon" }],
    ["invalid_reason", { reason: "ticket\u001b[2J 4711" }],
    ["invalid_reason", { reason: "line one\r\nline two" }],
    ["invalid_reason", { reason: "bell\u0007" }],
    ["invalid_reason", { reason: "\u202eevil" }],
    ["invalid_reason", { reason: "zero\u200bwidth" }],
    ["too_broad", { target: "0.0.0.0/0" }],
    ["too_broad", { target: "80.0.0.0/7" }],
    ["too_broad", { target: "2a00::/15" }],
    ["special_purpose", { target: "10.0.0.0/8" }],
    ["special_purpose", { target: "10.1.2.3" }],
    ["special_purpose", { target: "203.0.113.0/24" }],
    ["special_purpose", { target: "fc00::/7", force: true }],
    ["special_purpose", { target: "2001:db8::1" }],
  ])("refused with %s: %j", (code, change) => {
    let error: unknown;
    try {
      ipOverrideLine({ target: "81.2.69.7", action: "allow", reason: "r", author: "a", ...change }, NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OverrideError);
    expect((error as OverrideError).code).toBe(code as OverrideError["code"]);
  });

  test("a range broader than /8 (/16 of IPv6) is taken when forced, and says so for the log; a /8, an AS and public space as it is", () => {
    const line = (target: string, force = false) =>
      ipOverrideLine({ target, action: "allow", reason: "r", author: "a", force }, NOW).target;
    expect(line("0.0.0.0/0", true)).toBe("0.0.0.0/0");
    expect(rangeForced("0.0.0.0/0")).toBe("forced: a range broader than /8");
    expect(rangeForced("2a00::/12")).toBe("forced: a range broader than /16");
    for (const target of ["81.0.0.0/8", "2a00::/16", "AS15169", "81.2.69.7", "100.0.0.0/8"]) {
      expect(line(target)).toBe(target);
      expect(rangeForced(target)).toBeNull();
    }
  });
});
