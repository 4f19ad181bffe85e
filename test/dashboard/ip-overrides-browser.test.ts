import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_ARGS, chromiumExecutable } from "../support/chromium.ts";
import { withinDeadline } from "../support/deadline.ts";
import { type ServeProcess, makeDataDir, runCli, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// A real server and a real browser: the false-positive loop of the IP overrides page.
setDefaultTimeout(scaled(30_000));

const PASSWORD = "a long dashboard password";

let server: ServeProcess;
let browser: Browser;
let env: Record<string, string>;

beforeAll(async () => {
  const dataDir = makeDataDir();
  env = { RISKCHECK_DATA_DIR: dataDir, RISKCHECK_DB: join(dataDir, "rc.sqlite"), RISKCHECK_ADMIN_PASSWORD: PASSWORD };
  server = await startServe([], env);
  browser = await chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await withinDeadline("closing the browser", 10_000, browser?.close()).finally(() => server?.stop());
});

test("check an address, allow its network with a reason after confirming, see the line decide; the API agrees", async () => {
  const key = runCli(["keys", "create", "--name", "support"], env).stdout.trimEnd().split("\n").at(-1)!;
  const level = async () =>
    (
      (await (
        await fetch(`${server.url}/v1/ip-reputation-check?ip=8.8.8.8`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { reputation: { reputation: string } }
    ).reputation.reputation;
  expect(await level()).toBe("informative");

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const consoleErrors: string[] = [];
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  await page.goto(`${server.url}/dashboard`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("link", { name: "IP overrides" }).click();

  await page.getByLabel("Address", { exact: true }).fill("8.8.8.8");
  await page.getByRole("button", { name: "Check", exact: true }).click();
  const explanation = page.getByRole("region", { name: "Explanation" });
  await explanation.waitFor();
  expect(await explanation.textContent()).toContain("informative, not risky");
  expect(await explanation.textContent()).toContain("AS15169 Google LLC");

  // The reason is required: the browser keeps the form until it is given.
  await page.getByRole("button", { name: "Allow this network (AS15169)…" }).click();
  expect(page.url()).toContain("/dashboard/ip?check=8.8.8.8");
  await page.getByLabel("Reason to allow").fill("our <b>resolver</b> partner");
  await page.getByRole("button", { name: "Allow this network (AS15169)…" }).click();
  await page.getByRole("heading", { name: "Allow AS15169?" }).waitFor();
  expect(await page.getByText("Reason: “our <b>resolver</b> partner”").count()).toBe(1);
  expect(await level()).toBe("informative");

  await page.getByRole("button", { name: "Yes, allow AS15169" }).click();
  await page.getByText("The line was added").waitFor();
  const decided = await page.getByRole("region", { name: "Explanation" }).textContent();
  expect(decided).toContain("ok, not risky");
  expect(decided).toContain(
    "Decided by the line AS15169, never risky (allow): “our <b>resolver</b> partner”, by dashboard, until removed.",
  );
  expect(await level()).toBe("ok");
  expect(await page.locator('tr[data-target="AS15169"]').count()).toBe(1);

  await page.locator('tr[data-target="AS15169"]').getByRole("button", { name: "Remove" }).click();
  await page.getByText("The line was removed").waitFor();
  expect(await level()).toBe("informative");
  expect(consoleErrors).toEqual([]);
  await page.close();
});

/** Placeholders cut off by their field, rows whose labels on one line are not level, and how far the page overflows. */
const FORM_LAYOUT = `(() => {
    const canvas = document.createElement("canvas").getContext("2d");
    const cut = [...document.querySelectorAll("input[placeholder]")].filter((input) => {
      const style = getComputedStyle(input);
      canvas.font = style.font;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return canvas.measureText(input.placeholder).width > room;
    }).map((input) => input.placeholder);
    // Labels of one row that share a line of the page (a phone stacks them) share their top too.
    const uneven = [...document.querySelectorAll(".row")].flatMap((row) => {
      const labels = [...row.querySelectorAll(":scope > div > label")].map((l) => l.getBoundingClientRect());
      return labels.filter((a) => labels.some((b) => Math.abs(a.bottom - b.bottom) < a.height && a.top !== b.top))
        .map((a) => row.textContent.trim().slice(0, 40));
    });
    const overflow = document.documentElement.scrollWidth - innerWidth;
    return { cut, uneven, overflow: Math.max(overflow, 0) };
  })()`;

test.each([
  [1280, 800],
  [390, 844],
])(
  "at %i px no page is wider than the window, labels of a row are level, placeholders whole, Until a UTC day",
  async (width, height) => {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(`${server.url}/dashboard`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    for (const path of [
      "/dashboard",
      "/dashboard/email",
      "/dashboard/audit",
      "/dashboard/reports",
      "/dashboard/policy",
      "/dashboard/ip?check=8.8.8.8",
    ]) {
      await page.goto(`${server.url}${path}`);
      const layout = (await page.evaluate(FORM_LAYOUT)) as { cut: string[]; uneven: string[]; overflow: number };
      expect({ path, ...layout }).toEqual({ path, cut: [], uneven: [], overflow: 0 });
    }
    for (const id of ["#allow-until", "#until"]) {
      const until = page.locator(id);
      expect(await until.getAttribute("type")).toBe("text"); // a date input shows the browser's local format
      expect(await until.getAttribute("placeholder")).toBe("YYYY-MM-DD");
      expect(await page.locator(`label[for="${id.slice(1)}"]`).textContent()).toContain("UTC");
    }
    await page.close();
  },
);
