import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join, resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_ARGS, chromiumExecutable } from "../support/chromium.ts";
import { withinDeadline } from "../support/deadline.ts";
import { type ServeProcess, makeDataDir, startServe } from "../support/processes.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(30_000);

const PASSWORD = "a long dashboard password";
const SCREENSHOT = process.env.RISKCHECK_SCREENSHOT; // e.g. docs/dashboard.png, to refresh the picture in docs/dashboard.md

let server: ServeProcess;
let browser: Browser;

beforeAll(async () => {
  const dataDir = makeDataDir();
  server = await startServe([], { RISKCHECK_DATA_DIR: dataDir, RISKCHECK_DB: join(dataDir, "rc.sqlite"), RISKCHECK_ADMIN_PASSWORD: PASSWORD });
  browser = await chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await withinDeadline("closing the browser", 10_000, browser?.close()).finally(() => server?.stop());
});

const api = (key: string) => fetch(`${server.url}/v1/check?email=someone@gmail.com`, { headers: { authorization: `Bearer ${key}` } });

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
    await page.getByRole("button", { name: "Copy" }).waitFor({ state: "visible", timeout: 10_000 });
    expect((await api(secret)).status).toBe(200);

    await page.getByRole("link", { name: "Back to the keys" }).click();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByText("browser test <b>").count()).toBe(1);
    if (SCREENSHOT) await page.screenshot({ path: resolve(SCREENSHOT.replace(/\.png$/, "-phone.png")), fullPage: true });

    await page.getByRole("link", { name: "Revoke…" }).click();
    await page.getByRole("button", { name: "Yes, revoke this key" }).click();
    await page.getByText("The key was revoked").waitFor();
    const refused = await api(secret);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("API key revoked");
    expect(await page.locator("tr.revoked").count()).toBe(1);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Password").waitFor();
    await page.goto(`${server.url}/dashboard`);
    expect(await page.getByLabel("Password").count()).toBe(1);
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  test("a desktop-width page, with the secret never visible again", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/dashboard`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    for (const name of ["checkout back end", "nightly batch"]) {
      await page.getByLabel("Descriptive name").fill(name);
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("link", { name: "Back to the keys" }).click();
    }
    expect(await page.locator("tbody tr").count()).toBe(3);
    if (SCREENSHOT) await page.screenshot({ path: resolve(SCREENSHOT), fullPage: true });
    await page.close();
  });
});
