/**
 * `bun scripts/dashboard-screenshots.ts [FOLDER]`: every page of the dashboard in a real
 * browser, at 1280×800 and at phone width (390×844), written as FOLDER/dashboard-PAGE.png and
 * FOLDER/dashboard-PAGE-phone.png (FOLDER: docs/, which docs/dashboard.md shows). It starts
 * `riskcheck serve` on a data directory and database of its own in a temp folder, with a few
 * keys, lines, reports and days of usage (the past days written into the usage table, today's
 * made by real requests), and deletes them afterwards. The browser is the tests' one
 * (test/support/chromium.ts).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, type Page, chromium } from "playwright-core";
import { openStores } from "../src/stores/open.ts";
import { utcDay } from "../src/keys/usage.ts";
import type { UsageRow } from "../src/keys/usage-store.ts";
import { CHROMIUM_ARGS, chromiumExecutable } from "../test/support/chromium.ts";
import { type ServeProcess, makeDataDir, runCli, startServe } from "../test/support/processes.ts";

const FOLDER = resolve(process.argv[2] ?? "docs");
const PASSWORD = "a long dashboard password";
const VIEWPORTS = [
  { suffix: "", width: 1280, height: 800 },
  { suffix: "-phone", width: 390, height: 844 },
] as const;

const dataDir = makeDataDir();
const env = {
  RISKCHECK_DATA_DIR: dataDir,
  RISKCHECK_DB: join(dataDir, "rc.sqlite"),
  RISKCHECK_ADMIN_PASSWORD: PASSWORD,
};

/** `keys create`'s secret (its output's last line) and the key's id. */
function createKey(name: string, ...flags: string[]): { secret: string; id: string } {
  const made = runCli(["keys", "create", "--name", name, ...flags, "--json"], env);
  if (made.code !== 0) throw new Error(`keys create: ${made.stderr}`);
  const { id, key } = JSON.parse(made.stdout) as { id: string; key: string };
  return { id, secret: key };
}

function cli(...args: string[]): void {
  const run = runCli(args, env);
  if (run.code !== 0) throw new Error(`riskcheck ${args.join(" ")}: ${run.stderr}`);
}

const checkout = createKey("checkout back end", "--permissions", "check,report", "--rate-per-minute", "600");
createKey("nightly batch", "--expires", "90d");
const support = createKey("support tool", "--permissions", "check,manage");
cli("keys", "revoke", createKey("old staging key").id);

// Past days as the usage recorder would have flushed them: a week of work, a quiet weekend, a burst of bad input.
const nowMs = Date.now();
const past: UsageRow[] = [];
for (const [daysAgo, answered, refused, limited] of [
  [27, 1_830, 12, 0],
  [26, 2_210, 20, 0],
  [25, 1_975, 9, 0],
  [20, 2_400, 15, 31],
  [19, 2_650, 18, 120],
  [18, 2_120, 410, 4],
  [13, 1_200, 5, 0],
  [6, 2_980, 22, 0],
  [5, 3_150, 30, 12],
  [4, 2_870, 17, 0],
  [1, 1_020, 8, 0],
] as const) {
  const day = utcDay(nowMs - daysAgo * 86_400_000);
  const row = (outcome: UsageRow["outcome"], count: number): UsageRow => ({
    keyId: checkout.id,
    day,
    endpoint: "ip",
    outcome,
    count,
  });
  past.push(row("ok", answered), row("bad_request", refused));
  if (limited > 0) past.push(row("rate_limited", limited));
}
const stores = await openStores({ databaseUrl: null, dbPath: env.RISKCHECK_DB });
await stores.usage.flush(past, new Map());
await stores.close();

cli("email", "deny", "throwaway-mail.example", "--reason", "sign-ups from it never confirm", "--until", "2027-03-31");
cli("email", "allow", "partner-corp.example", "--reason", "our reseller: their staff sign up in bulk");
cli("ip", "allow", "AS15169", "--reason", "Google's resolvers, for the office network check");
cli("ip", "deny", "81.2.69.0/24", "--reason", "card testing from this range, ticket 4711", "--until", "2027-01-15");
const rules = join(dataDir, "policy.json");
await Bun.write(
  rules,
  JSON.stringify({
    rules: [
      {
        id: "office",
        conditions: { any: [{ field: "ip.asn", op: "in", value: ["AS20712"] }] },
        decision: "allow",
        reason: "our office network",
        mode: "enforce",
      },
      {
        id: "disposable-on-vpn",
        conditions: {
          all: [
            { field: "email.disposable", op: "is", value: true },
            { field: "ip.kind", op: "has_any", value: ["vpn", "hosting"] },
          ],
        },
        decision: "block",
        reason: "the card-testing wave of 2026-11",
      },
    ],
  }),
);
cli("policy", "import", rules);

let server: ServeProcess | undefined;
let browser: Browser | undefined;
try {
  server = await startServe([], env);
  const url = server.url;
  const api = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
  for (let i = 0; i < 40; i++) await api(`/v1/ip-reputation-check?ip=8.8.${i}.8`, checkout.secret);
  for (const ip of ["81.2.69.142", "8.8.8.8", "1.1.1.1"])
    await api(`/v1/assess?event=signup&email=someone@throwaway-mail.example&ip=${ip}`, checkout.secret);
  await api("/v1/check?email=nobody@throwaway-mail.example", support.secret);
  await api("/v1/check?email=not-an-address", checkout.secret);
  await api("/v1/reports", checkout.secret, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      reports: [
        { ip: "81.2.69.142", category: "attack", comment: "credential stuffing on /login, 300 attempts in a minute" },
        { ip: "81.2.69.160", category: "bot", comment: "sign-up form filled in 0.4 s" },
        { ip: "2a00:1450:4001:81c::200e", category: "probe", comment: null },
      ],
    }),
  });

  browser = await chromium.launch({ executablePath: await chromiumExecutable(), args: CHROMIUM_ARGS });
  mkdirSync(FOLDER, { recursive: true });
  for (const { suffix, width, height } of VIEWPORTS) {
    const page = await browser.newPage({ viewport: { width, height } });
    const shot = (name: string) => page.screenshot({ path: join(FOLDER, `${name}${suffix}.png`), fullPage: true });
    await page.goto(`${url}/dashboard`);
    await shot("dashboard-sign-in");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "API Keys" }).waitFor();
    await shot("dashboard");
    await page.goto(`${url}/dashboard/keys/${checkout.id}`);
    await page.getByText("Every day's numbers").click(); // the table, with its days without traffic as one row each
    await shot("dashboard-key");
    await page.goto(`${url}/dashboard/email`);
    await shot("dashboard-email");
    await page.goto(`${url}/dashboard/ip?check=81.2.69.142`);
    await shot("dashboard-ip");
    await page.goto(`${url}/dashboard/reports`);
    await shot("dashboard-reports");
    await page.goto(`${url}/dashboard/policy`);
    await shot("dashboard-policy");
    await page.goto(`${url}/dashboard/audit`);
    await shot("dashboard-audit");
    await signOut(page);
    await page.close();
  }
  console.log(`${FOLDER}: dashboard screenshots written`);
} finally {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Password").waitFor();
}
