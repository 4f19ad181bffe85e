import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { KEYS_PER_PAGE } from "../../src/dashboard/key-rows.ts";
import type { UsageRow } from "../../src/keys/usage-store.ts";
import { DashboardClient } from "../support/dashboard-client.ts";
import { createTestApp } from "../support/test-app.ts";
import { scaled } from "../support/slowness.ts";

// Every sign-in runs argon2id (~100 ms of a core); a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const PASSWORD = "correct horse battery staple";
const KEYS = 2_000;

let t: Awaited<ReturnType<typeof createTestApp>>;
let browser: DashboardClient;
const ids: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ adminPassword: PASSWORD });
  const rows: UsageRow[] = [];
  for (let i = 0; i < KEYS; i++) {
    const { key } = await t.keys.create({ name: `service ${i}` }, new Date(t.clock.now - (KEYS - i) * 60_000));
    ids.push(key.id);
    for (let d = 0; d < 30; d++) {
      const day = new Date(t.clock.now - d * 86_400_000).toISOString().slice(0, 10);
      rows.push(
        { keyId: key.id, day, endpoint: "email", outcome: "ok", count: 1 },
        { keyId: key.id, day, endpoint: "ip", outcome: "ok", count: 2 },
      );
    }
  }
  await t.usageStore.flush(rows, new Map());
  await t.keys.revoke(ids[KEYS - 1]);
  browser = new DashboardClient((r) => t.handle(r));
  expect((await browser.signIn(PASSWORD)).status).toBe(303);
});

const rowIds = (body: string) => [...body.matchAll(/data-key-id="([^"]+)"/g)].map((m) => m[1]);

describe(`the dashboard with ${KEYS} keys`, () => {
  test("shows one page of keys, active and newest first, with their usage", async () => {
    const { res, body } = await browser.get("/dashboard");
    expect(res.status).toBe(200);
    expect(rowIds(body)).toEqual(ids.slice(KEYS - 1 - KEYS_PER_PAGE, KEYS - 1).reverse());
    expect(body).toContain(`Keys 1–${KEYS_PER_PAGE} of ${KEYS}`);
    expect(body).toContain(`<a href="/dashboard?page=2" rel="next">`);
    expect(body.match(/>Manage<\/a>/g)).toHaveLength(KEYS_PER_PAGE);
    expect(body).toMatch(/<td data-label="This month \(email \/ IP\)" class="num">[1-9]\d* \/ [1-9]\d*<\/td>/);
    // The page stays small whatever the number of keys (it was 11.8 MB with every key on it).
    expect(body.length).toBeLessThan(400_000);
  });

  test("the last page ends with the revoked key; past it is 404, a malformed page number 400", async () => {
    const last = KEYS / KEYS_PER_PAGE;
    const { body } = await browser.get(`/dashboard?page=${last}`);
    expect(rowIds(body).at(-1)).toBe(ids[KEYS - 1]);
    expect(body).toContain(`<a href="/dashboard?page=${last - 1}" rel="prev">`);
    expect(body).not.toContain('rel="next"');
    expect((await browser.get(`/dashboard?page=${last + 1}`)).res.status).toBe(404);
    for (const page of ["0", "-1", "abc", "1.5", "9999999", ""])
      expect((await browser.get(`/dashboard?page=${page}`)).res.status).toBe(400);
  });

  test("a search finds keys by name, display prefix or id, and pages keep the search", async () => {
    const byName = await browser.get("/dashboard?q=SERVICE+123");
    expect(rowIds(byName.body)).toEqual([
      ids[1239],
      ids[1238],
      ids[1237],
      ids[1236],
      ids[1235],
      ids[1234],
      ids[1233],
      ids[1232],
      ids[1231],
      ids[1230],
      ids[123],
    ]);
    expect(byName.body).toContain("matching “SERVICE 123”");
    const key = (await t.keys.find(ids[7]))!;
    expect(rowIds((await browser.get(`/dashboard?q=${key.prefix}`)).body)).toEqual([ids[7]]);
    expect(rowIds((await browser.get(`/dashboard?q=${key.id}`)).body)).toEqual([ids[7]]);
    expect((await browser.get("/dashboard?q=nothing+like+it")).body).toContain("No key matches.");
    expect((await browser.get("/dashboard?q=service+1")).body).toContain(
      'href="/dashboard?q=service+1&amp;page=2" rel="next"',
    );
  });
});
