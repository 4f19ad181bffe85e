import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { type ServeProcess, makeDataDir, runCli, runCliAsync, startServe } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// Real servers over one SQLite file: a loaded machine needs time to start them.
setDefaultTimeout(scaled(60_000));

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) {
    if (server.proc.exitCode === null) {
      server.proc.kill("SIGKILL");
      await Promise.race([server.proc.exited, Bun.sleep(scaled(5_000))]);
    }
  }
});

async function serve(dataDir: string): Promise<ServeProcess> {
  const server = await startServe(["--data-dir", dataDir], { RISKCHECK_RATE_PER_MINUTE: "0" });
  running.push(server);
  return server;
}

function reportingKey(dataDir: string): string {
  const created = runCli([
    "keys",
    "create",
    "--name",
    "waf",
    "--permissions",
    "check,report",
    "--json",
    "--data-dir",
    dataDir,
  ]);
  expect(created.code).toBe(0);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

const post = (url: string, key: string, body: unknown) =>
  fetch(`${url}/v1/reports`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("riskcheck serve with local reports", () => {
  test("no report answered 2xx is lost when the server gets SIGTERM in the middle of a batch load", async () => {
    const dataDir = makeDataDir();
    const key = reportingKey(dataDir);
    const server = await serve(dataDir);
    const acknowledged: string[] = [];
    let batch = 0;
    const refusals: string[] = [];
    // Four clients send batches of 250 new addresses each, back to back, until the server is gone.
    const client = async () => {
      while (true) {
        const n = batch++;
        const reports = Array.from({ length: 250 }, (_, i) => ({
          ip: `81.${(n >> 8) & 255}.${n & 255}.${i + 1}`,
          category: "bot",
        }));
        let res: Response;
        try {
          res = await post(server.url, key, { reports });
        } catch {
          return; // the connection was refused or closed: the server has stopped
        }
        if (res.status !== 200) {
          refusals.push(`${res.status} ${await res.text()}`);
          continue;
        }
        const body = (await res.json()) as { accepted: number };
        expect(body.accepted).toBe(250);
        acknowledged.push(...reports.map((r) => r.ip));
      }
    };
    const clients = Promise.all([client(), client(), client(), client()]);
    while (acknowledged.length < 2_000) await Bun.sleep(5);
    server.proc.kill("SIGTERM");
    await clients;
    expect(await server.proc.exited).toBe(0);
    expect(refusals).toEqual([]);
    const db = new Database(join(dataDir, "riskcheck.sqlite"), { readonly: true });
    try {
      const stored = new Set(
        db
          .query<{ ip: string }, []>("SELECT ip FROM reports")
          .all()
          .map((r) => r.ip),
      );
      const lost = acknowledged.filter((ip) => !stored.has(ip));
      expect(lost).toEqual([]);
      expect(stored.size).toBeGreaterThanOrEqual(acknowledged.length);
    } finally {
      db.close();
    }
  });

  test("a report posted to one instance moves another's verdict within 10 s, and `reports delete` takes it back within 10 s", async () => {
    const dataDir = makeDataDir();
    const key = reportingKey(dataDir);
    const [one, other] = await Promise.all([serve(dataDir), serve(dataDir)]);
    const level = async (url: string) => {
      const res = await fetch(`${url}/v1/ip-reputation-check?ip=81.2.69.142`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await res.json()) as { reputation: { reputation: string } }).reputation.reputation;
    };
    const within10s = async (url: string, expected: string) => {
      const started = performance.now();
      while ((await level(url)) !== expected) {
        if (performance.now() - started > scaled(10_000))
          throw new Error(`still ${await level(url)} after ${scaled(10_000)} ms, expected ${expected}`);
        await Bun.sleep(100);
      }
      return performance.now() - started;
    };
    expect(await level(other.url)).toBe("ok");
    expect(
      (await post(one.url, key, { ip: "81.2.69.142", category: "attack", comment: "credential stuffing" })).status,
    ).toBe(200);
    expect(await level(one.url)).toBe("informative");
    await within10s(other.url, "informative");
    const listed = runCli(["reports", "list", "--ip", "81.2.69.142", "--json", "--data-dir", dataDir]);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        ip: "81.2.69.142",
        category: "attack",
        key_name: "waf",
        comment: "credential stuffing",
      }),
    ]);
    const exported = runCli(["reports", "export", "--since", "2000-01-01", "--data-dir", dataDir]);
    expect(exported.stdout.split("\n")[1]).toMatch(
      /^[\d-]+T[\d:.]+Z,81\.2\.69\.142,attack,key_[\w-]+,waf,credential stuffing$/,
    );
    const deleted = await runCliAsync([
      "reports",
      "delete",
      "--ip",
      "81.2.69.142",
      "--key",
      "waf",
      "--data-dir",
      dataDir,
    ]);
    expect(deleted.stdout).toContain("Deleted 1 report(s)");
    await Promise.all([within10s(one.url, "ok"), within10s(other.url, "ok")]);
  });
});
