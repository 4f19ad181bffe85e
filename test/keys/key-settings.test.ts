import { describe, expect, test } from "bun:test";
import { allowedFrom, parseAllowedNetworks } from "../../src/keys/allowed-networks.ts";
import { parseExpiry } from "../../src/keys/expiry.ts";
import { parseGrace } from "../../src/keys/rotation-grace.ts";
import { KeyAuthenticator, keyIndexOf } from "../../src/keys/key-authenticator.ts";
import { keyStatus, rotationEndsAt } from "../../src/keys/key-record.ts";
import { newKeyRow, rotatedRow, toRecord, keyEntryOf } from "../../src/stores/key-row.ts";
import { dailyOutcomes } from "../../src/keys/usage-outcomes.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";

const NOW = Date.UTC(2026, 10, 28, 12);

describe("expiry", () => {
  test.each([
    ["30d", "2026-12-28T12:00:00.000Z"],
    ["12h", "2026-11-29T00:00:00.000Z"],
    ["2027-01-31 18:05 UTC", "2027-01-31T18:05:00.000Z"],
    ["2027-01-31", "2027-01-31T00:00:00.000Z"],
    ["2027-01-31T18:00:00Z", "2027-01-31T18:00:00.000Z"],
    ["2027-01-31T18:00+02:00", "2027-01-31T16:00:00.000Z"],
    ["never", null],
    ["", null],
  ])("%p → %p", (text, expected) => {
    expect(parseExpiry(text, NOW)).toEqual({ expiresAt: expected });
  });
  test.each(["2027-02-30", "2027-13-01", "tomorrow", "0d", "2027-01-31T18:00", "2027-01-31 18:00Z", "-5d"])(
    "%p is refused",
    (text) => {
      expect(parseExpiry(text, NOW)).toEqual({ error: expect.stringContaining("is not an expiry") });
    },
  );
  test("a time that has passed is refused", () => {
    expect(parseExpiry("2026-11-28", NOW)).toEqual({ error: expect.stringContaining("has passed") });
  });
});

describe("allowed networks", () => {
  test("parses addresses and CIDRs of both families, trimmed, without repeats", () => {
    expect(parseAllowedNetworks(" 10.0.0.0/8 ,2001:db8::/32, 192.0.2.7,10.0.0.0/8")).toEqual({
      networks: ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"],
    });
    expect(parseAllowedNetworks(" Any ")).toEqual({ networks: [] });
  });
  test.each(["10.0.0.0/33", "10.0.0/8", "example.com", "2001:db8::/129", "10.0.0.0/08"])("%p is refused", (text) => {
    expect(parseAllowedNetworks(text)).toEqual({ error: expect.stringContaining("not an address or CIDR") });
  });
  test.each([
    ["", 'or "any" for anywhere; the text was empty'],
    ["   ", "the text was empty"],
    ["10.0.0.0/8,", "an entry of the list is empty"],
    ["10.0.0.0/8,,192.0.2.7", "an entry of the list is empty"],
    ["10.0.0.1/8", '"10.0.0.1/8" has host bits set: the network is 10.0.0.0/8'],
    ["2001:db8::1/32", "the network is 2001:db8::/32"],
    ["any,10.0.0.0/8", '"any" is not an address or CIDR'],
  ])("%p is refused: an empty text never means anywhere, host bits are not dropped", (text, message) => {
    expect(parseAllowedNetworks(text)).toEqual({ error: expect.stringContaining(message) });
  });
  test("at most 100", () => {
    const many = Array.from({ length: 101 }, (_, i) => `10.0.${i}.0/24`).join(",");
    expect(parseAllowedNetworks(many)).toEqual({ error: "a key allows at most 100 networks" });
  });
  test("a key accepts clients inside its networks only; without networks, anyone", () => {
    const { row } = newKeyRow({ name: "k", allowedNetworks: ["10.0.0.0/8", "2001:db8::/32"] }, new Date(NOW));
    const key = toRecord(row);
    const from = (ip: string) => allowedFrom(key, parseIpAddress(ip));
    expect([
      from("10.255.0.1"),
      from("2001:db8::1"),
      from("::ffff:10.1.2.3"),
      from("127.0.0.1"),
      from("11.0.0.1"),
      from("2001:db9::1"),
    ]).toEqual([true, true, true, false, false, false]);
    expect(allowedFrom(key, null)).toBe(false);
    expect(allowedFrom(toRecord(newKeyRow({ name: "open" }, new Date(NOW)).row), null)).toBe(true);
  });
});

describe("the authenticator's index", () => {
  test("a rotation's previous secret works until the grace ends, then is unknown; the key expires for both secrets", () => {
    const { row, secret: old } = newKeyRow(
      { name: "k", expiresAt: new Date(NOW + 10_000).toISOString() },
      new Date(NOW),
    );
    const { row: rotated, secret } = rotatedRow(row, 2_000, new Date(NOW));
    let now = NOW;
    const index = keyIndexOf([rotated].map(keyEntryOf));
    const auth = new KeyAuthenticator({ current: () => index, afterMiss: () => index }, () => now);
    expect([auth.authenticate(old).outcome, auth.authenticate(secret).outcome]).toEqual(["active", "active"]);
    now = NOW + 2_000;
    expect([auth.authenticate(old).outcome, auth.authenticate(secret).outcome]).toEqual(["unknown", "active"]);
    now = NOW + 10_000;
    expect(auth.authenticate(secret).outcome).toBe("expired");
    const key = toRecord(rotated);
    expect([
      keyStatus(key, NOW),
      keyStatus(key, NOW + 10_000),
      rotationEndsAt(key, NOW),
      rotationEndsAt(key, NOW + 2_000),
    ]).toEqual(["active", "expired", new Date(NOW + 2_000).toISOString(), null]);
  });
});

describe("usage by outcome", () => {
  test("every day of the window, oldest first, outcomes grouped, per endpoint too", () => {
    const rows = [
      { keyId: "k", day: "2026-11-27", endpoint: "ip", outcome: "ok", count: 5 },
      { keyId: "k", day: "2026-11-27", endpoint: "ip", outcome: "ok_unmetered", count: 1 },
      { keyId: "k", day: "2026-11-28", endpoint: "email", outcome: "bad_request", count: 2 },
      { keyId: "k", day: "2026-11-28", endpoint: "email", outcome: "rate_limited", count: 3 },
      { keyId: "k", day: "2026-11-28", endpoint: "ip", outcome: "quota_exceeded", count: 4 },
      { keyId: "k", day: "2026-11-28", endpoint: "report", outcome: "reports_accepted", count: 40 },
      { keyId: "k", day: "2026-11-28", endpoint: "report", outcome: "forbidden", count: 1 },
      { keyId: "k", day: "2026-11-20", endpoint: "ip", outcome: "ok", count: 99 },
    ] as const;
    const days = dailyOutcomes(rows, 3, NOW);
    expect(days.map((d) => d.day)).toEqual(["2026-11-26", "2026-11-27", "2026-11-28"]);
    expect(days[0]).toEqual({
      day: "2026-11-26",
      answered: 0,
      rate_limited: 0,
      over_quota: 0,
      refused: 0,
      forbidden: 0,
      reports_accepted: 0,
      endpoints: {},
    });
    expect(days[1]).toMatchObject({ answered: 6, endpoints: { ip: { answered: 6 } } });
    expect(days[2]).toMatchObject({
      answered: 0,
      refused: 2,
      rate_limited: 3,
      over_quota: 4,
      forbidden: 1,
      reports_accepted: 40,
    });
    expect(Object.keys(days[2].endpoints)).toEqual(["email", "ip", "report"]);
  });
});

describe("a rotation's grace and a key's expiry are bounded", () => {
  test("a grace of at most 30 days, or 0", () => {
    expect(parseGrace("30d")).toEqual({ graceMs: 30 * 86_400_000 });
    expect(parseGrace(" 0 ")).toEqual({ graceMs: 0 });
    expect(parseGrace("999999d")).toEqual({ error: expect.stringContaining("a grace is at most 30d") });
    expect(parseGrace("31d")).toEqual({ error: expect.stringContaining("at most 30d") });
    expect(parseGrace("soon")).toEqual({ error: expect.stringContaining("is a duration such as") });
    const { row } = newKeyRow({ name: "k" }, new Date(NOW));
    expect(() => rotatedRow(row, 31 * 86_400_000, new Date(NOW))).toThrow("at most 30 days");
  });
  test("an expiry at most ten years ahead; further is never", () => {
    expect(parseExpiry("3650d", NOW)).toEqual({ expiresAt: new Date(NOW + 3650 * 86_400_000).toISOString() });
    for (const text of ["999999d", "9999-01-01"])
      expect(parseExpiry(text, NOW)).toEqual({ error: expect.stringContaining("more than ten years ahead") });
  });
});
