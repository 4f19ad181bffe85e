import { describe, expect, test } from "bun:test";
import {
  OverrideError,
  type OverrideLine,
  activeOverrides,
  overrideFor,
  overrideLine,
} from "../../src/email/overrides.ts";

const NOW = new Date(Date.UTC(2026, 10, 25, 12));
const line = (domain: string, action: "allow" | "deny", until: string | null = null): OverrideLine => ({
  domain,
  action,
  reason: `why ${domain}`,
  author: "ops",
  created: NOW.toISOString(),
  until,
});

describe("an override line", () => {
  test("normalises the domain, keeps reason and author, and reads --until as the end of that day (UTC)", () => {
    expect(
      overrideLine(
        {
          domain: " Example-Corp.COM ",
          action: "allow",
          reason: " staff domain ",
          author: "jane",
          until: "2026-12-31",
        },
        NOW,
      ),
    ).toEqual({
      domain: "example-corp.com",
      action: "allow",
      reason: "staff domain",
      author: "jane",
      created: NOW.toISOString(),
      until: "2027-01-01T00:00:00.000Z",
    });
    expect(
      overrideLine(
        { domain: "bücher.de", action: "deny", reason: "r", author: "a", until: "2026-11-25T18:30:00Z" },
        NOW,
      ),
    ).toMatchObject({ domain: "xn--bcher-kva.de", until: "2026-11-25T18:30:00.000Z" });
  });

  test.each([
    [{ domain: "not a domain" }, /not a domain name/],
    [{ domain: "localhost" }, /not a domain name/],
    [{ reason: "   " }, /say why with --reason/],
    [{ reason: "x".repeat(501) }, /at most 500/],
    [{ until: "2026-11-24" }, /already passed/],
    [{ until: "next week" }, /not a date/],
  ])("%#: %j is refused", (change, message) => {
    expect(() =>
      overrideLine(
        { domain: "example-corp.com", action: "allow", reason: "r", author: "a", until: null, ...change },
        NOW,
      ),
    ).toThrow(OverrideError);
    expect(() =>
      overrideLine(
        { domain: "example-corp.com", action: "allow", reason: "r", author: "a", until: null, ...change },
        NOW,
      ),
    ).toThrow(message);
  });

  test("applies until its expiry, to the domain and its subdomains, the most specific line first", () => {
    const lines = [
      line("corp.example-x.com", "allow"),
      line("mail.corp.example-x.com", "deny", "2026-11-25T13:00:00.000Z"),
    ];
    const before = activeOverrides(lines, Date.parse("2026-11-25T12:59:59Z"));
    expect(overrideFor(before, "a.mail.corp.example-x.com")?.action).toBe("deny");
    expect(overrideFor(before, "other.corp.example-x.com")?.action).toBe("allow");
    expect(overrideFor(before, "example-x.com")).toBeUndefined();
    const after = activeOverrides(lines, Date.parse("2026-11-25T13:00:00Z"));
    expect(overrideFor(after, "a.mail.corp.example-x.com")?.action).toBe("allow");
  });
});
