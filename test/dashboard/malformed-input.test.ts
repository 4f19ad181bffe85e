import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { csrfOf } from "../support/dashboard-client.ts";
import { createTestApp } from "../support/test-app.ts";
import { signedInDashboard } from "../support/signed-in-dashboard.ts";
import { scaled } from "../support/slowness.ts";

// Every sign-in runs argon2id (~100 ms of a core); a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

async function signedIn() {
  const t = await signedInDashboard();
  return { ...t, csrf: csrfOf((await t.browser.get("/dashboard")).body) };
}

const raw = (t: Awaited<ReturnType<typeof signedIn>>, path: string, contentType: string | null, body: string) =>
  t.handle(
    new Request(`http://riskcheck.test${path}`, {
      method: "POST",
      headers: {
        ...(contentType ? { "content-type": contentType } : {}),
        cookie: [...t.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      },
      body,
    }),
  );

describe("bodies other than the dashboard's own forms get a 4xx, never a 500", () => {
  test.each([
    ["malformed JSON", "application/json", "{"],
    ["JSON", "application/json", '{"csrf":"x","name":"evil"}'],
    ["malformed multipart", "multipart/form-data; boundary=x", "garbage"],
    ["plain text", "text/plain", "csrf=x"],
    ["no content type", null, "csrf=x"],
  ])("%s", async (_, type, body) => {
    const t = await signedIn();
    for (const path of [
      "/dashboard/sign-in",
      "/dashboard/keys",
      "/dashboard/sign-out",
      "/dashboard/keys/key_x/revoke",
    ]) {
      const res = await raw(t, path, type, body);
      expect(res.status).toBe(415);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await res.text()).toContain("application/x-www-form-urlencoded");
    }
    expect(await t.keys.list()).toHaveLength(0);
    expect(t.errors).toEqual([]);
  });

  test("a field given twice counts as missing", async () => {
    const t = await signedIn();
    expect(
      (await raw(t, "/dashboard/keys", "application/x-www-form-urlencoded", `csrf=${t.csrf}&csrf=${t.csrf}&name=a`))
        .status,
    ).toBe(403);
    expect(
      (await raw(t, "/dashboard/keys", "application/x-www-form-urlencoded", `csrf=${t.csrf}&name=a&name=b`)).status,
    ).toBe(400);
    expect(await t.keys.list()).toHaveLength(0);
  });

  test("a key name with a bidirectional override is refused with 400", async () => {
    const t = await signedIn();
    const res = await raw(
      t,
      "/dashboard/keys",
      "application/x-www-form-urlencoded",
      `csrf=${t.csrf}&name=${encodeURIComponent("invoice\u202egnp.exe")}`,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("invisible formatting characters");
    expect(await t.keys.list()).toHaveLength(0);
  });

  test("broken percent-encoding is read as text, not an error", async () => {
    const t = await signedIn();
    expect((await raw(t, "/dashboard/keys", "application/x-www-form-urlencoded", `csrf=%E0%A4%A&name=x`)).status).toBe(
      403,
    );
    expect(
      (await raw(t, "/dashboard/keys", "application/x-www-form-urlencoded", `csrf=${t.csrf}&name=%E0%A4%Ax`)).status,
    ).toBe(200);
    expect(t.errors).toEqual([]);
  });
});

describe("names from the request are looked up as own entries only", () => {
  test.each(["constructor", "__proto__", "toString", "hasOwnProperty"])("asset %s is 404", async (name) => {
    const t = await createTestApp();
    expect((await t.request(`/dashboard/assets/${name}`)).status).toBe(404);
  });

  test.each(["constructor", "__proto__", "toString"])("?done=%s shows no notice", async (name) => {
    const { browser } = await signedIn();
    const { res, body } = await browser.get(`/dashboard?done=${name}`);
    expect(res.status).toBe(200);
    expect(body).not.toContain('role="status"');
    expect(body).not.toContain("[object");
    expect(body).not.toContain("native code");
  });

  test("a malformed key id in a path is a 404", async () => {
    const { browser } = await signedIn();
    expect((await browser.get("/dashboard/keys/%E0%A4%A/revoke")).res.status).toBe(404);
    expect((await browser.get("/dashboard/keys/constructor/revoke")).res.status).toBe(404);
  });
});
