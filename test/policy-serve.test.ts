import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ServeProcess, makeDataDir, runCli, runCliAsync, startServe } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// A real server and the real CLI on one SQLite database: the rules reach the running server within 2 s.
setDefaultTimeout(scaled(60_000));

let server: ServeProcess;
let env: Record<string, string>;
let key: string;
let dir: string;

beforeAll(async () => {
  dir = makeDataDir();
  env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "riskcheck.sqlite"), RISKCHECK_RATE_PER_MINUTE: "0" };
  server = await startServe([], env);
  key = runCli(["keys", "create", "--name", "signups"], env).stdout.trimEnd().split("\n").at(-1)!;
});

afterAll(async () => {
  if (server.proc.exitCode === null) await server.stop();
});

const QUERY = "email=someone@mailinator.com&ip=8.8.8.8&event=signup&explain=1";
const assessed = async (): Promise<{ decision: string; rule: { id: string } | null; shadow: { id: string }[] }> =>
  (await fetch(`${server.url}/v1/assess?${QUERY}`, { headers: { authorization: `Bearer ${key}` } })).json() as never;

/** Milliseconds until the assessment satisfies `done`; fails after 10 s on a quiet machine. */
async function until(done: (a: Awaited<ReturnType<typeof assessed>>) => boolean): Promise<number> {
  const started = performance.now();
  while (!done(await assessed())) {
    if (performance.now() - started > scaled(10_000)) throw new Error(`not so after ${scaled(10_000)} ms`);
    await Bun.sleep(50);
  }
  return performance.now() - started;
}

describe("rules in a running server, changed by the CLI", () => {
  test("a rule added in shadow is counted within 2 s; enforced, it decides; metrics count both", async () => {
    expect(await assessed()).toMatchObject({ decision: "challenge", rule: null, shadow: [] });
    const file = join(dir, "rule.json");
    writeFileSync(
      file,
      JSON.stringify({
        id: "disposable-hosting",
        conditions: {
          all: [
            { field: "email.disposable", op: "is", value: true },
            { field: "ip.kind", op: "has", value: "hosting" },
          ],
        },
        decision: "block",
        reason: "a throwaway address from a data centre",
      }),
    );
    const added = await runCliAsync(["policy", "add", file], env);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('Added rule "disposable-hosting" (#1, shadow, block)');
    expect(await until((a) => a.shadow.length === 1)).toBeLessThan(scaled(2_000));
    expect(await assessed()).toMatchObject({
      decision: "challenge",
      rule: null,
      shadow: [{ id: "disposable-hosting" }],
    });

    expect((await runCliAsync(["policy", "enforce", "disposable-hosting"], env)).code).toBe(0);
    expect(await until((a) => a.decision === "block")).toBeLessThan(scaled(2_000));
    expect(await assessed()).toMatchObject({ rule: { id: "disposable-hosting" }, shadow: [] });

    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^riskcheck_assessments_total\{event="signup",decision="challenge"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^riskcheck_assessments_total\{event="signup",decision="block"\} [1-9]\d*$/m);
    expect(metrics).toMatch(
      /^riskcheck_policy_rule_total\{rule="disposable-hosting",outcome="would_decide"\} [1-9]\d*$/m,
    );
    expect(metrics).toMatch(/^riskcheck_policy_rule_total\{rule="disposable-hosting",outcome="decided"\} [1-9]\d*$/m);
  });

  test("a set that does not parse is refused by the CLI, naming rule and field, and the server keeps its rules", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        rules: [
          {
            id: "x",
            decision: "block",
            reason: "r",
            conditions: { any: [{ field: "ip.kinds", op: "has", value: "vpn" }] },
          },
        ],
      }),
    );
    const refused = await runCliAsync(["policy", "import", file], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('rule "x" (#1): conditions.any[0].field: unknown field "ip.kinds"');
    expect((await assessed()).rule?.id).toBe("disposable-hosting");
    const listed = JSON.parse(runCli(["policy", "list", "--json"], env).stdout);
    expect(listed.rules.map((r: { id: string; mode: string }) => `${r.id}:${r.mode}`)).toEqual([
      "disposable-hosting:enforce",
    ]);
    expect(runCli(["audit", "list", "--action", "policy_rule"], env).stdout).toContain("policy_rule.changed");
  });
});
