import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_ARGS, chromiumExecutable } from "../support/chromium.ts";
import { withinDeadline } from "../support/deadline.ts";
import { type ServeProcess, makeDataDir, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const PASSWORD = "a long dashboard password";

let server: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  const dataDir = makeDataDir();
  server = await startServe([], {
    RISKCHECK_DATA_DIR: dataDir,
    RISKCHECK_DB: join(dataDir, "rc.sqlite"),
    RISKCHECK_ADMIN_PASSWORD: PASSWORD,
  });
  browser = await chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await withinDeadline("closing the browser", 10_000, browser?.close()).finally(() => server?.stop());
});

/** A page at this viewport, signed in, on the keys page. */
async function signedIn(width: number, height = 900) {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(`${server.url}/dashboard`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "API Keys" }).waitFor();
  return page;
}

const api = (key: string) =>
  fetch(`${server.url}/v1/check?email=someone@gmail.com`, { headers: { authorization: `Bearer ${key}` } });

describe("the dashboard in a real browser", () => {
  test("sign in, create a key, use it, revoke it with confirmation, sign out", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } }); // a phone
    const cspViolations: string[] = [];
    page.on("console", (m) => m.type() === "error" && cspViolations.push(m.text()));

    await page.goto(`${server.url}/dashboard`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Create New API Key" }).waitFor();

    await page.getByLabel("Descriptive name").fill("browser test <b>");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.locator("#new-key").textContent())!;
    expect(secret).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    // The script ran under the CSP: it adds the button (after the page loads, so wait for it; isVisible does not).
    await page.getByRole("button", { name: "Copy" }).waitFor({ state: "visible", timeout: scaled(10_000) });
    expect((await api(secret)).status).toBe(200);

    await page.getByRole("link", { name: "Back to the keys" }).click();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByText("browser test <b>").count()).toBe(1);

    // The key's page at phone width: the chart's axis text as legible as the page's small print, the sections linked.
    await page.locator("tr", { hasText: "browser test <b>" }).getByRole("link", { name: "Manage" }).click();
    await page.locator("svg.outcome-chart").waitFor();
    const tickPixels = await page.evaluate(`[...document.querySelectorAll("svg.outcome-chart text.tick")]
      .filter((t) => t.getClientRects().length > 0)
      .map((t) => { const m = t.getScreenCTM(); return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); })`);
    expect((tickPixels as number[]).length).toBeGreaterThan(5);
    expect(Math.min(...(tickPixels as number[]))).toBeGreaterThanOrEqual(11);
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link").count()).toBe(6);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "API keys" }).click();

    await page.getByRole("link", { name: "Revoke…" }).click();
    await page.getByRole("button", { name: "Yes, revoke this key" }).click();
    await page.getByText("The key was revoked").waitFor();
    const refused = await api(secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("API key revoked");
    expect(await page.locator("tr.revoked").count()).toBe(1);

    // On the record, newest first, by this session; the name shown as typed, never as markup.
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const rows = page.locator("tbody tr");
    expect(await rows.first().locator('td[data-label="Action"]').textContent()).toBe("key.revoked");
    expect(await rows.first().locator('td[data-label="Target"]').textContent()).toEndWith("(browser test <b>)");
    expect(await rows.first().locator('td[data-label="By"]').textContent()).toMatch(
      /^session [0-9a-f]{8} from 127\.0\.0\.1 \(dashboard\)$/,
    );
    expect(await page.content()).not.toContain(secret);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Password").waitFor();
    await page.goto(`${server.url}/dashboard`);
    expect(await page.getByLabel("Password").count()).toBe(1);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  test("a desktop-width page, with the secret never visible again", async () => {
    const page = await signedIn(1280, 800);
    for (const name of ["checkout back end", "nightly batch"]) {
      await page.getByLabel("Descriptive name").fill(name);
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("link", { name: "Back to the keys" }).click();
    }
    expect(await page.locator("tbody tr").count()).toBe(3);
    await page.close();
  });

  test("a key's page: change its settings, see its outcomes, rotate it", async () => {
    const page = await signedIn(1280);
    await page.getByLabel("Descriptive name").fill("checkout service, EU region");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.locator("#new-key").textContent())!;
    await page.getByRole("link", { name: "Back to the keys" }).click();
    await page.locator("tr", { hasText: "checkout service, EU region" }).getByRole("link", { name: "Manage" }).click();

    await page.getByLabel("Requests per minute").fill("3");
    await page.getByLabel("Expires").fill("90d");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("The key was changed").waitFor();
    await Bun.sleep(scaled(1_100)); // the server rereads the keys within a second of the change
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api(secret)).status);
    statuses.push(
      (await fetch(`${server.url}/v1/check?email=nope`, { headers: { authorization: `Bearer ${secret}` } })).status,
    );
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    await page.reload();
    const chart = page.locator("svg.outcome-chart");
    expect(await chart.isVisible()).toBe(true);
    expect((await chart.boundingBox())!.width).toBeGreaterThan(600);
    expect(await page.locator("ul.legend").textContent()).toMatch(/Answered: \d+.*Rate-limited: [1-9]/s);
    expect(await page.getByText(/Last used .* from /).count()).toBe(0); // the facts list it as a term and its value
    expect(await page.locator("dl.facts").textContent()).toMatch(
      /Last used\s*\d{4}-\d\d-\d\d \d\d:\d\d UTC from 127\.0\.0\.1/,
    );
    expect(await page.locator("dl.facts").textContent()).toMatch(/Expiry\s*expires \d{4}-/);

    await page.getByLabel("Old secret works for").selectOption("1h");
    await page.getByRole("button", { name: "Rotate…" }).click();
    const rotated = (await page.locator("#new-key").textContent())!;
    expect(rotated).not.toBe(secret);
    await Bun.sleep(scaled(1_100));
    expect([(await api(secret)).status, (await api(rotated)).status]).not.toContain(401);

    // The change and the rotation on the record, filtered to this key: what changed, never a secret.
    await page.goto(`${server.url}/dashboard/audit?target=${encodeURIComponent("EU region")}`);
    const actions = await page.locator('tbody td[data-label="Action"]').allTextContents();
    expect(actions).toEqual(["key.rotated", "key.updated", "key.created"]);
    expect(await page.locator("tbody tr").nth(1).locator('td[data-label="Change"]').textContent()).toContain(
      "ratePerMinute: null → 3",
    );
    for (const value of [secret, rotated]) expect(await page.content()).not.toContain(value);
    // At 1280 px the time (and its column's title) and the actor keep to one line each: the change has the room.
    const lines = (selector: string) =>
      page.evaluate(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector(${JSON.stringify(selector)}).firstChild);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      })()`);
    expect([await lines("thead th.when"), await lines("tbody td.when"), await lines("tbody td .actor")]).toEqual([
      1, 1, 1,
    ]);
    await page.close();
  });

  test.each([1024, 1280, 1920])(
    "at %i px the keys table fits its box and every row's actions are in view",
    async (width) => {
      const page = await signedIn(width);
      const rows = page.locator("tbody tr");
      expect(await rows.count()).toBeGreaterThanOrEqual(3);
      const wrap = page.locator(".table-wrap");
      const overflow = await wrap.evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const box = (await wrap.boundingBox())!;
      for (let i = 0; i < (await rows.count()); i++) {
        const actions = rows.nth(i).locator("td.actions a");
        expect(await actions.count()).toBeGreaterThanOrEqual(1);
        for (let j = 0; j < (await actions.count()); j++) {
          const link = (await actions.nth(j).boundingBox())!;
          expect(link.x).toBeGreaterThanOrEqual(box.x);
          expect(link.x + link.width).toBeLessThanOrEqual(Math.min(box.x + box.width, width));
        }
      }
      await page.close();
    },
  );
});
