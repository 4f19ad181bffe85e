import { describe, expect, test } from "bun:test";
import { createTestApp } from "../support/test-app.ts";

async function setup() {
  const t = await createTestApp();
  const { secret } = await t.newKey();
  return { ...t, check: (query: string) => t.request(`/v1/check${query}`, { key: secret }) };
}

describe("email check answers with the spec's four fields", () => {
  test.each([
    [
      "someone@mailinator.com",
      { email: "someone@mailinator.com", is_disposable: true, domain: "mailinator.com", free_email: false },
    ],
    ["someone@gmail.com", { email: "someone@gmail.com", is_disposable: false, domain: "gmail.com", free_email: true }],
    ["Someone@GMAIL.com", { email: "Someone@GMAIL.com", is_disposable: false, domain: "gmail.com", free_email: true }],
    [
      "x@sub.mailinator.com",
      { email: "x@sub.mailinator.com", is_disposable: true, domain: "sub.mailinator.com", free_email: false },
    ],
    [
      "x@alias.33mail.com",
      { email: "x@alias.33mail.com", is_disposable: true, domain: "alias.33mail.com", free_email: false },
    ],
    [
      "x@corp.example.org",
      { email: "x@corp.example.org", is_disposable: true, domain: "corp.example.org", free_email: false },
    ],
    ["x@acme-corp.org", { email: "x@acme-corp.org", is_disposable: false, domain: "acme-corp.org", free_email: false }],
    ["x@duck.com", { email: "x@duck.com", is_disposable: false, domain: "duck.com", free_email: false }],
    ["x@uw.edu.pl", { email: "x@uw.edu.pl", is_disposable: false, domain: "uw.edu.pl", free_email: false }],
    ['"a\\"b"@gmail.com', { email: '"a\\"b"@gmail.com', is_disposable: false, domain: "gmail.com", free_email: true }],
  ])("%s", async (email, body) => {
    const { check } = await setup();
    const res = await check(`?email=${encodeURIComponent(email)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.text()).toBe(JSON.stringify(body));
  });

  test("an IDN domain is matched and answered in punycode", async () => {
    const { check } = await setup();
    const res = await check(`?email=${encodeURIComponent("x@пример.com")}`);
    expect(await res.text()).toBe(
      JSON.stringify({ email: "x@пример.com", is_disposable: true, domain: "xn--e1afmkfd.com", free_email: false }),
    );
  });

  test("a literal + stays a +", async () => {
    const { check } = await setup();
    expect(await (await check("?email=user+tag@gmail.com")).json()).toMatchObject({
      email: "user+tag@gmail.com",
      free_email: true,
    });
  });

  test("rate-limit headers come with every answer", async () => {
    const { check } = await setup();
    const res = await check("?email=a@gmail.com");
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("999");
  });
});

describe("email check errors", () => {
  const MISSING = { error: "missing_parameter", message: "The 'email' parameter is required" };
  const INVALID = { error: "invalid_email", message: "The provided email address is not valid" };
  test.each([
    ["", MISSING],
    ["?", MISSING],
    ["?email", MISSING],
    ["?email=", MISSING],
    ["?other=a@gmail.com", MISSING],
    ["?email=a@gmail.com&email=b@gmail.com", INVALID],
    ["?email=not-an-email", INVALID],
    ["?email=%E0%A4%A", INVALID],
    ["?email=a%00@gmail.com", INVALID],
    ["?email=a@gmail.com%20", INVALID],
    [`?email=${"a".repeat(10_000)}@gmail.com`, INVALID],
  ])("%#: %.60s", async (query, body) => {
    const { check } = await setup();
    const res = await check(query);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(body);
  });

  test("authentication comes before validation", async () => {
    const { request } = await setup();
    const res = await request("/v1/check?email=bad");
    expect(res.status).toBe(401);
  });
});
