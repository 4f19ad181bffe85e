import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { type ServeProcess, makeDataDir, runCli, runCliAsync, startServe } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// A real server and the real CLI on one SQLite database: IP override lines reach the running server within 3 s.
setDefaultTimeout(scaled(60_000));

let server: ServeProcess;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  const dir = makeDataDir();
  env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "riskcheck.sqlite"), RISKCHECK_RATE_PER_MINUTE: "0" };
  server = await startServe([], env);
  key = runCli(["keys", "create", "--name", "ip-overrides"], env).stdout.trimEnd().split("\n").at(-1)!;
});

afterAll(async () => {
  if (server.proc.exitCode === null) await server.stop();
});

const reputation = async (address: string): Promise<any> =>
  (
    (await (
      await fetch(`${server.url}/v1/ip-reputation-check?ip=${address}&explain=1`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json()) as { reputation: unknown }
  ).reputation;

/** Milliseconds until the address's level becomes `level`; fails after 10 s on a quiet machine. */
async function until(address: string, level: string): Promise<number> {
  const started = performance.now();
  while ((await reputation(address)).reputation !== level) {
    if (performance.now() - started > scaled(10_000))
      throw new Error(`${address} still not ${level} after ${scaled(10_000)} ms`);
    await Bun.sleep(50);
  }
  return performance.now() - started;
}

describe("IP override lines in a running server", () => {
  test.concurrent("ip deny of a range takes effect within 3 s, and explain names the line", async () => {
    expect(await reputation("81.2.69.142")).toMatchObject({ risky: false, reputation: "ok" });
    const added = await runCliAsync(
      ["ip", "deny", "81.2.69.128/25", "--reason", "card testing from this range", "--author", "tester"],
      env,
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("81.2.69.128/25 is always risky (bad)");
    expect(await until("81.2.69.142", "bad")).toBeLessThan(scaled(3_000));
    expect(await reputation("81.2.69.142")).toMatchObject({
      risky: true,
      reasons: {
        rule: { id: "denylisted" },
        override: {
          target: "81.2.69.128/25",
          action: "deny",
          reason: "card testing from this range",
          author: "tester",
          until: null,
          source: "database",
        },
      },
    });
  });

  test.concurrent("ip allow of a network (AS) makes hosting ok, then expires by itself and is listed as expired", async () => {
    expect((await reputation("8.8.8.8")).reputation).toBe("informative");
    const until_ = new Date(Date.now() + scaled(4_000)).toISOString();
    expect((await runCliAsync(["ip", "allow", "AS15169", "--reason", "our cloud", "--until", until_], env)).code).toBe(
      0,
    );
    expect(await until("8.8.8.8", "ok")).toBeLessThan(scaled(3_000));
    expect((await reputation("8.8.8.8")).reasons.override).toMatchObject({ target: "AS15169", until: until_ });
    await until("8.8.8.8", "informative");
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until_));
    expect(runCli(["ip", "list"], env).stdout).toContain(`expired ${until_}`);
  });

  test("ip remove gives the verdict back to the feeds; list --json shows the lines", async () => {
    const listed = JSON.parse(runCli(["ip", "list", "--json"], env).stdout) as { target: string; active: boolean }[];
    expect(listed.map((l) => [l.target, l.active])).toEqual([
      ["81.2.69.128/25", true],
      ["AS15169", false],
    ]);
    expect((await runCliAsync(["ip", "remove", "81.2.69.128/25"], env)).code).toBe(0);
    expect(await until("81.2.69.142", "ok")).toBeLessThan(scaled(3_000));
    const again = runCli(["ip", "remove", "81.2.69.128/25"], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("no IP override line for 81.2.69.128/25");
  });

  test("a key made with --permissions manage adds and removes a line through the admin API; the check key sees it at once", async () => {
    const manage = JSON.parse(
      runCli(["keys", "create", "--name", "support-tool", "--permissions", "manage", "--json"], env).stdout,
    ).key as string;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${manage}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const added = await call("POST", "/v1/overrides", {
      kind: "ip",
      target: "2001:4860:4860::8888",
      action: "deny",
      reason: "support ticket 99",
    });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ id: "ip:2001:4860:4860::8888", author: "support-tool" });
    expect((await reputation("2001:4860:4860::8888")).reputation).toBe("bad");
    expect(runCli(["ip", "list"], env).stdout).toContain("support ticket 99");
    expect((await call("DELETE", "/v1/overrides/ip:2001:4860:4860::8888")).status).toBe(204);
    expect((await reputation("2001:4860:4860::8888")).reputation).toBe("informative");
    // The key made for the checks may not manage.
    expect((await fetch(`${server.url}/v1/overrides`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      403,
    );
  });

  test.each([
    [["ip", "allow", "81.2.69.142"], "--reason"],
    [["ip", "allow", "81.2.69.142/24", "--reason", "x"], "host bits set: the range is 81.2.69.0/24"],
    [["ip", "deny", "AS0", "--reason", "x"], "is not an AS number"],
    [["ip", "deny", "mailinator.com", "--reason", "x"], "is not an IP address, a CIDR range or an AS number"],
    [["ip", "allow", "81.2.69.142", "--reason", "x", "--until", "2020-01-01"], "has already passed"],
    [["ip", "allow", "0.0.0.0/0", "--reason", "x"], "is broader than a /8"],
    [["ip", "allow", "10.0.0.0/8", "--reason", "x", "--force"], "lies in special-purpose space (private use)"],
    [["ip", "allow", "81.2.69.142", "--reason", "ticket\u001b]0;pwned\u0007 4711"], "one line of text"],
  ])("%j is refused with a usage error naming the problem", (args, message) => {
    const refused = runCli(args, env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
  });
});
