import { describe, expect, test } from "bun:test";
import { OverrideWatch } from "../../src/email/override-watch.ts";
import { OverrideError, type OverrideLine, activeOverrides, overrideFor, overrideLine } from "../../src/email/overrides.ts";
import { STORE_BACKENDS } from "../support/store-backends.ts";

const NOW = new Date(Date.UTC(2026, 10, 25, 12));
const line = (domain: string, action: "allow" | "deny", until: string | null = null): OverrideLine => ({ domain, action, reason: `why ${domain}`, author: "ops", created: NOW.toISOString(), until });

describe("an override line", () => {
  test("normalises the domain, keeps reason and author, and reads --until as the end of that day (UTC)", () => {
    expect(overrideLine({ domain: " Example-Corp.COM ", action: "allow", reason: " staff domain ", author: "jane", until: "2026-12-31" }, NOW)).toEqual({
      domain: "example-corp.com",
      action: "allow",
      reason: "staff domain",
      author: "jane",
      created: NOW.toISOString(),
      until: "2027-01-01T00:00:00.000Z",
    });
    expect(overrideLine({ domain: "bücher.de", action: "deny", reason: "r", author: "a", until: "2026-11-25T18:30:00Z" }, NOW)).toMatchObject({ domain: "xn--bcher-kva.de", until: "2026-11-25T18:30:00.000Z" });
  });

  test.each([
    [{ domain: "not a domain" }, /not a domain name/],
    [{ domain: "localhost" }, /not a domain name/],
    [{ reason: "   " }, /say why with --reason/],
    [{ reason: "x".repeat(501) }, /at most 500/],
    [{ until: "2026-11-24" }, /already passed/],
    [{ until: "next week" }, /not a date/],
  ])("%#: %j is refused", (change, message) => {
    expect(() => overrideLine({ domain: "example-corp.com", action: "allow", reason: "r", author: "a", until: null, ...change }, NOW)).toThrow(OverrideError);
    expect(() => overrideLine({ domain: "example-corp.com", action: "allow", reason: "r", author: "a", until: null, ...change }, NOW)).toThrow(message);
  });

  test("applies until its expiry, to the domain and its subdomains, the most specific line first", () => {
    const lines = [line("corp.example-x.com", "allow"), line("mail.corp.example-x.com", "deny", "2026-11-25T13:00:00.000Z")];
    const before = activeOverrides(lines, Date.parse("2026-11-25T12:59:59Z"));
    expect(overrideFor(before, "a.mail.corp.example-x.com")?.action).toBe("deny");
    expect(overrideFor(before, "other.corp.example-x.com")?.action).toBe("allow");
    expect(overrideFor(before, "example-x.com")).toBeUndefined();
    const after = activeOverrides(lines, Date.parse("2026-11-25T13:00:00Z"));
    expect(overrideFor(after, "a.mail.corp.example-x.com")?.action).toBe("allow");
  });
});

describe.each(STORE_BACKENDS)("$name: the override store", (backend) => {
  test("adds, replaces, lists and removes lines", async () => {
    const { emailOverrides } = await backend.fresh();
    await emailOverrides.put(line("b.example-x.com", "deny", "2027-01-01T00:00:00.000Z"));
    await emailOverrides.put(line("a.example-x.com", "allow"));
    await emailOverrides.put({ ...line("b.example-x.com", "allow"), reason: "changed my mind" });
    expect(await emailOverrides.list()).toEqual([line("a.example-x.com", "allow"), { ...line("b.example-x.com", "allow"), reason: "changed my mind" }]);
    expect(await emailOverrides.remove("a.example-x.com")).toBe(true);
    expect(await emailOverrides.remove("a.example-x.com")).toBe(false);
    expect((await emailOverrides.list()).map((l) => l.domain)).toEqual(["b.example-x.com"]);
  });

  test("another instance's watch sees a line added, and sees it expire without asking again", async () => {
    const { emailOverrides } = await backend.fresh();
    const other = await backend.another();
    const clock = { now: NOW.getTime() };
    const watch = new OverrideWatch(other.emailOverrides, () => clock.now);
    expect(await watch.refresh()).toBe(false);
    await emailOverrides.put(line("c.example-x.com", "deny", "2026-11-25T12:00:05.000Z"));
    expect(await watch.refresh()).toBe(true);
    expect(watch.active.get("c.example-x.com")?.action).toBe("deny");
    expect(await watch.refresh()).toBe(false);
    clock.now += 5_000;
    expect(watch.recompute()).toBe(true);
    expect(watch.active.size).toBe(0);
  });
});
