import { describe, expect, test } from "bun:test";
import { createTestApp } from "../support/test-app.ts";

async function setup(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(options);
  const { secret } = await t.newKey();
  return {
    ...t,
    secret,
    check: (query: string, headers: Record<string, string> = {}) =>
      t.request(`/v1/ip-reputation-check${query}`, { key: secret, headers }),
  };
}

const PRIVATE_BODY = (ip: string) => ({
  ip,
  country: "",
  country_code: "",
  region: "",
  region_name: "",
  city: "",
  subdivisions: "",
  connection_type: "",
  is_anycast: false,
  zip: "",
  latitude: 0,
  longitude: 0,
  timezone: "",
  isp: "",
  organization: "",
  asn: "",
  reputation: { risky: false, reputation: "ok", bot: 0, probe: 0, rate: 0, attack: 0, crawler: 0, sum: 0, kind: [] },
});

const FIELDS = [
  "ip",
  "country",
  "country_code",
  "flag",
  "region",
  "region_name",
  "city",
  "subdivisions",
  "connection_type",
  "is_anycast",
  "zip",
  "latitude",
  "longitude",
  "timezone",
  "isp",
  "organization",
  "asn",
  "reputation",
];

describe("answers on the bundled data", () => {
  test("8.8.8.8", async () => {
    const { check } = await setup();
    const res = await check("?ip=8.8.8.8");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = (await res.json()) as Record<string, any>;
    expect(Object.keys(body)).toEqual(FIELDS);
    expect(body).toMatchObject({
      ip: "8.8.8.8",
      country: "United States",
      country_code: "US",
      flag: "🇺🇸",
      is_anycast: true,
      asn: "AS15169 Google LLC",
      isp: "Google LLC",
    });
    expect(body.asn).toStartWith("AS15169 ");
    expect(body.reputation).toEqual({
      risky: false,
      reputation: "informative",
      bot: 0,
      probe: 0,
      rate: 0,
      attack: 0,
      crawler: 0,
      sum: 0,
      kind: ["hosting"],
    });
  });
  test("81.2.69.142 is in Great Britain with its flag", async () => {
    const { check } = await setup();
    expect(await (await check("?ip=81.2.69.142")).json()).toMatchObject({
      country_code: "GB",
      flag: "🇬🇧",
      region: "ENG",
      region_name: "England",
      city: "Bracknell",
      zip: "RG12",
    });
  });
  test("an IPv6 address, echoed in canonical form", async () => {
    const { check } = await setup();
    const body = (await (await check("?ip=2001:4860:4860:0:0:0:0:8888")).json()) as Record<string, any>;
    expect(body).toMatchObject({
      ip: "2001:4860:4860::8888",
      country_code: "US",
      asn: "AS15169 Google LLC",
      is_anycast: true,
    });
  });
  test("an IPv4-mapped address is answered as IPv4", async () => {
    const { check } = await setup();
    expect(await (await check("?ip=::ffff:81.2.69.142")).json()).toMatchObject({
      ip: "81.2.69.142",
      country_code: "GB",
    });
  });
  test("an address the city file lacks gets its country", async () => {
    const { check } = await setup();
    expect(await (await check("?ip=1.1.1.1")).json()).toMatchObject({
      country: "Australia",
      country_code: "AU",
      flag: "🇦🇺",
      city: "",
      asn: "AS13335 Cloudflare, Inc.",
    });
  });
  test("?explain=1 adds the reasons", async () => {
    const { check } = await setup();
    const body = (await (await check("?ip=66.249.66.1&explain=1")).json()) as Record<string, any>;
    expect(body.reputation.kind).toContain("crawler");
    expect(body.reputation.reasons).toEqual({
      rule: { id: "kind-vpn-or-hosting", level: "informative", reports: 0 },
      contributions: [
        {
          source: "curated/crawler-ranges",
          category: "verified-crawler",
          count: 1,
          weight: 1,
          counted: 0,
          first_seen: null,
          last_seen: null,
        },
      ],
      kinds: [
        { kind: "crawler", from: "curated/crawler-ranges" },
        { kind: "hosting", from: "AS15169 in curated/hosting-asns.txt" },
      ],
      location_source: "geolite2",
      // GeoLite2 knows Googlebot's range only as American.
      location_precision: "country",
      // The bundled data has no feed: the answer says so.
      warnings: [expect.stringContaining("no reputation feed is loaded")],
    });
    for (const query of ["", "&explain=0", "&explain=false", "&explain=no"]) {
      expect(
        ((await (await check(`?ip=66.249.66.1${query}`)).json()) as Record<string, any>).reputation.reasons,
      ).toBeUndefined();
    }
    for (const query of ["&explain", "&explain=", "&explain=true", "&explain=YES"]) {
      expect(
        ((await (await check(`?ip=66.249.66.1${query}`)).json()) as Record<string, any>).reputation.reasons.rule.id,
      ).toBe("kind-vpn-or-hosting");
    }
  });
});

describe("private and reserved addresses get the exact private body", () => {
  test.each([
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "127.0.0.1",
    "100.64.0.1",
    "169.254.1.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "192.0.2.1",
    "::1",
    "fe80::1",
    "fc00::1",
    "2001:db8::1",
    "ff02::1",
    "::ffff:10.0.0.1",
  ])("%s", async (address) => {
    const { check } = await setup();
    const res = await check(`?ip=${encodeURIComponent(address)}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toEqual(PRIVATE_BODY(address === "::ffff:10.0.0.1" ? "10.0.0.1" : address));
    expect("flag" in body).toBe(false);
  });
});

describe("invalid addresses", () => {
  test.each([
    "?ip=",
    "?ip=1.2.3",
    "?ip=01.2.3.4",
    "?ip=0x7f.0.0.1",
    "?ip=256.1.1.1",
    "?ip=1.2.3.4%20",
    "?ip=1.2.3.4.5",
    "?ip=fe80::1%25eth0",
    "?ip=8.8.8.8&ip=1.1.1.1",
    "?ip=%zz",
    "?ip=example.com",
  ])("%s → 400 invalid_ip", async (query) => {
    const { check } = await setup();
    const res = await check(query);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "invalid_ip", message: "invalid IP address format" });
  });
});

describe("the caller's own address", () => {
  test("is the socket peer when ip is omitted", async () => {
    const { check, client } = await setup();
    client.address = "81.2.69.142";
    expect(await (await check("")).json()).toMatchObject({ ip: "81.2.69.142", country_code: "GB" });
  });
  test("a private peer gets the private body", async () => {
    const { check, client } = await setup();
    client.address = "127.0.0.1";
    expect(await (await check("")).json()).toEqual(PRIVATE_BODY("127.0.0.1"));
  });
});

describe("quota over HTTP", () => {
  const QUOTA = {
    error: "quota_exceeded",
    message: "Monthly quota exceeded. Please upgrade your plan or wait until next month.",
    retry_after: 86400,
  };
  test("headers on every 200, an exact 429 when used up, and only successes count", async () => {
    const { check } = await setup({ ipQuotaPerMonth: 2 });
    const first = await check("?ip=8.8.8.8");
    expect([
      first.headers.get("x-quota-limit"),
      first.headers.get("x-quota-remaining"),
      first.headers.get("x-quota-reset"),
    ]).toEqual(["2", "1", "2026-12-01T00:00:00Z"]);
    const bad = await check("?ip=nope");
    expect([bad.status, bad.headers.get("x-quota-remaining")]).toEqual([400, "1"]);
    expect((await check("?ip=1.1.1.1")).headers.get("x-quota-remaining")).toBe("0");
    const refused = await check("?ip=8.8.8.8");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(QUOTA);
    expect([
      refused.headers.get("x-quota-limit"),
      refused.headers.get("x-quota-remaining"),
      refused.headers.get("x-quota-reset"),
    ]).toEqual(["2", "0", "2026-12-01T00:00:00Z"]);
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(8 * 86400 - 12 * 3600));
  });
  test("401s and the email check do not use the quota", async () => {
    const { request, check, secret } = await setup({ ipQuotaPerMonth: 1 });
    await request("/v1/ip-reputation-check?ip=8.8.8.8", { key: "rk_wrong" });
    await request("/v1/check?email=a@gmail.com", { key: secret });
    expect((await check("?ip=8.8.8.8")).status).toBe(200);
    expect((await check("?ip=8.8.8.8")).status).toBe(429);
  });
  test("a new month starts afresh", async () => {
    const { check, clock } = await setup({ ipQuotaPerMonth: 1 });
    expect((await check("?ip=8.8.8.8")).status).toBe(200);
    expect((await check("?ip=8.8.8.8")).status).toBe(429);
    clock.now = Date.UTC(2026, 11, 1);
    expect((await check("?ip=8.8.8.8")).status).toBe(200);
  });
  test("a per-key quota overrides the default", async () => {
    const t = await createTestApp({ ipQuotaPerMonth: 100 });
    const { secret } = await t.newKey("tiny", { ipQuotaPerMonth: 1 });
    expect((await t.request("/v1/ip-reputation-check?ip=8.8.8.8", { key: secret })).headers.get("x-quota-limit")).toBe(
      "1",
    );
  });
  test("concurrent requests never overshoot", async () => {
    const { check } = await setup({ ipQuotaPerMonth: 25 });
    const statuses = await Promise.all(Array.from({ length: 100 }, () => check("?ip=8.8.8.8").then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 429)).toHaveLength(75);
  });
  test("a private or loopback answer, the caller's own included, spends no quota, after a restart too", async () => {
    const { check, client, request, secret, stores, usage } = await setup({ ipQuotaPerMonth: 2 });
    client.address = "127.0.0.1";
    for (const query of ["", "?ip=10.0.0.1", "?ip=192.168.1.20", "?ip=::1", "?ip=fd00::1", "?ip=100.64.0.1"]) {
      const res = await check(query);
      expect([query, res.status, res.headers.get("x-quota-remaining")]).toEqual([query, 200, "2"]);
    }
    expect((await check("?ip=8.8.8.8")).headers.get("x-quota-remaining")).toBe("1");
    const own = await request("/v1/ip-reputation-check", { key: secret });
    expect([own.status, own.headers.get("x-quota-remaining")]).toEqual([200, "1"]);
    // SQLite reads this month's used quota back from usage at start: the private answers are not in it.
    await usage.flush();
    const restarted = await createTestApp({ stores, ipQuotaPerMonth: 2 });
    const after = await restarted.request("/v1/ip-reputation-check?ip=8.8.4.4", { key: secret });
    expect([after.status, after.headers.get("x-quota-remaining")]).toEqual([200, "0"]);
    expect((await restarted.request("/v1/ip-reputation-check?ip=8.8.4.4", { key: secret })).status).toBe(429);
    // The quota is checked before the address is read (the contract's order), so a used-up quota refuses these too.
    expect((await restarted.request("/v1/ip-reputation-check?ip=10.1.1.1", { key: secret })).status).toBe(429);
  });
  test("the order is auth, rate limit, quota, validation", async () => {
    const { check } = await setup({ ipQuotaPerMonth: 1, ratePerMinute: 60, rateBurst: 3 });
    expect((await check("?ip=8.8.8.8")).status).toBe(200);
    expect((await check("?ip=bad")).status).toBe(429); // quota before validation
    expect((await check("?ip=bad")).status).toBe(429);
    const limited = await check("?ip=8.8.8.8");
    expect(((await limited.json()) as { error: string }).error).toBe("rate_limit_exceeded");
  });
});
