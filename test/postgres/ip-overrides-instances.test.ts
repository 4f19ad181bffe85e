import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { POSTGRES_SETUP_TIMEOUT_MS, freshDatabaseUrl, startTestPostgres } from "../support/postgres.ts";
import { type ServeProcess, makeDataDir, runCliAsync, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

setDefaultTimeout(scaled(60_000));

beforeAll(startTestPostgres, POSTGRES_SETUP_TIMEOUT_MS);

const running: ServeProcess[] = [];
afterAll(() => Promise.all(running.map((s) => s.stop("SIGKILL"))));

test("two instances on one PostgreSQL database: an IP override line from the CLI, its removal, reach both within 3 s", async () => {
  const env = {
    RISKCHECK_DATABASE_URL: await freshDatabaseUrl(),
    RISKCHECK_DATA_DIR: mkdtempSync(join(tmpdir(), "riskcheck-cli-")),
    RISKCHECK_RATE_PER_MINUTE: "0",
  };
  const created = await runCliAsync(["keys", "create", "--name", "fraud", "--json"], env);
  expect(created.code).toBe(0);
  const headers = { authorization: `Bearer ${JSON.parse(created.stdout).key}` };
  const servers = await Promise.all(
    [makeDataDir(), makeDataDir()].map((dir) => startServe(["--data-dir", dir], env).then((s) => (running.push(s), s))),
  );
  const levelOn = async (server: ServeProcess, ip: string) => {
    const res = await fetch(`${server.url}/v1/ip-reputation-check?ip=${ip}&explain=1`, { headers });
    expect(res.status).toBe(200);
    return ((await res.json()) as { reputation: { reputation: string } }).reputation.reputation;
  };
  /** Polls both instances until each gives `level`; how long each took. */
  const bothReach = (ip: string, level: string) => {
    const since = performance.now();
    return Promise.all(
      servers.map(async (server) => {
        while ((await levelOn(server, ip)) !== level) {
          if (performance.now() - since > scaled(10_000))
            throw new Error(`${server.url}: ${ip} not ${level} after ${scaled(10_000)} ms`);
          await Bun.sleep(50);
        }
        return performance.now() - since;
      }),
    );
  };

  for (const server of servers) expect(await levelOn(server, "2001:4860:4860::8888")).toBe("informative");
  expect((await runCliAsync(["ip", "deny", "2001:4860:4860::/48", "--reason", "test wave"], env)).code).toBe(0);
  const denied = await bothReach("2001:4860:4860::8888", "bad");
  expect((await runCliAsync(["ip", "allow", "2001:4860:4860::8888", "--reason", "our resolver"], env)).code).toBe(0);
  const allowed = await bothReach("2001:4860:4860::8888", "ok");
  for (const server of servers) expect(await levelOn(server, "2001:4860:4860::8844")).toBe("bad");
  expect((await runCliAsync(["ip", "remove", "2001:4860:4860::8888"], env)).code).toBe(0);
  const removed = await bothReach("2001:4860:4860::8888", "bad");
  for (const took of [...denied, ...allowed, ...removed]) expect(took).toBeLessThan(scaled(3_000));

  expect(await Promise.all(servers.map((s) => s.stop("SIGTERM")))).toEqual([0, 0]);
  console.log(
    `two instances: an IP deny after ${denied.map((d) => `${d.toFixed(0)} ms`).join(" and ")}; an allow after ${allowed.map((d) => `${d.toFixed(0)} ms`).join(" and ")}; a removal after ${removed.map((d) => `${d.toFixed(0)} ms`).join(" and ")}`,
  );
});
