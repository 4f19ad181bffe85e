import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { type ServeProcess, makeDataDir, runCli, runCliAsync, startServe } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// A real server and the real CLI on one SQLite database: override lines reach the running server without an update.
setDefaultTimeout(scaled(60_000));

let server: ServeProcess;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  const dir = makeDataDir();
  env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "riskcheck.sqlite") };
  server = await startServe([], env);
  key = runCli(["keys", "create", "--name", "overrides"], env).stdout.trimEnd().split("\n").at(-1)!;
});

afterAll(async () => {
  if (server.proc.exitCode === null) await server.stop();
});

const check = async (address: string): Promise<any> =>
  (
    await fetch(`${server.url}/v1/check?email=${encodeURIComponent(address)}&explain=1`, {
      headers: { authorization: `Bearer ${key}` },
    })
  ).json();

/** Milliseconds until the answer's is_disposable becomes `expected`; fails after 15 s on a quiet machine. */
async function until(address: string, expected: boolean): Promise<number> {
  const started = performance.now();
  while ((await check(address)).is_disposable !== expected) {
    if (performance.now() - started > scaled(15_000)) throw new Error(`${address} still not is_disposable ${expected}`);
    await Bun.sleep(100);
  }
  return performance.now() - started;
}

describe("override lines in a running server", () => {
  // Allow and deny touch different domains and mostly wait for the server to look again: they run together.
  test.concurrent("email allow takes effect within 10 s, and explain shows the line", async () => {
    expect((await check("someone@mailinator.com")).is_disposable).toBe(true);
    const added = await runCliAsync(
      ["email", "allow", "mailinator.com", "--reason", "a test of the override path", "--author", "tester"],
      env,
    );
    expect(added.code).toBe(0);
    expect(await until("someone@mailinator.com", false)).toBeLessThan(scaled(10_000));
    expect((await check("someone@mailinator.com")).reasons).toMatchObject({
      rule: "allowlisted",
      override: {
        domain: "mailinator.com",
        action: "allow",
        reason: "a test of the override path",
        author: "tester",
        until: null,
      },
    });
  });

  test.concurrent("email deny with --until applies, then stops applying by itself", async () => {
    const until_ = new Date(Date.now() + scaled(4_000)).toISOString();
    expect(
      (
        await runCliAsync(
          ["email", "deny", "example-corp-override.com", "--reason", "a short test", "--until", until_],
          env,
        )
      ).code,
    ).toBe(0);
    expect(await until("someone@example-corp-override.com", true)).toBeLessThan(scaled(10_000));
    expect((await check("someone@example-corp-override.com")).reasons).toMatchObject({
      rule: "denylisted",
      override: { until: until_ },
    });
    await until("someone@example-corp-override.com", false);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until_));
    expect(runCli(["email", "list"], env).stdout).toContain(`expired ${until_}`);
  });

  test("email remove gives the verdict back to the lists", async () => {
    expect((await runCliAsync(["email", "remove", "mailinator.com"], env)).code).toBe(0);
    expect(await until("someone@mailinator.com", true)).toBeLessThan(scaled(10_000));
  });
});
