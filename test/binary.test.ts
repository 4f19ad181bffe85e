import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeDataDir, startServe } from "./support/processes.ts";

const ROOT = resolve(import.meta.dir, "..");

describe("the compiled binary", () => {
  test("runs alone, without Bun or node_modules: version, keys and serve", async () => {
    const build = Bun.spawnSync([process.execPath, "build.ts"], { cwd: ROOT, timeout: 90_000, killSignal: "SIGKILL" });
    expect(build.exitCode).toBe(0);

    const dir = mkdtempSync(join(tmpdir(), "riskcheck-bin-"));
    const binary = join(dir, "riskcheck");
    copyFileSync(join(ROOT, "dist", "riskcheck"), binary);
    const dataDir = makeDataDir();
    // PATH without Bun, and a working directory with no node_modules anywhere above it.
    const env = { PATH: "/usr/bin:/bin", HOME: dir, RISKCHECK_DATA_DIR: dataDir };
    const run = (...args: string[]) => Bun.spawnSync([binary, ...args], { cwd: dir, env, timeout: 20_000, killSignal: "SIGKILL" });

    expect(run("version").stdout.toString()).toMatch(/^riskcheck \d+\.\d+\.\d+\n$/);
    const help = run("update", "--help");
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toStartWith("usage: riskcheck update");
    const created = run("keys", "create", "--name", "bin", "--json");
    expect(created.exitCode).toBe(0);
    const { key } = JSON.parse(created.stdout.toString());

    const server = await startServe([], env, [binary]);
    try {
      const res = await fetch(`${server.url}/v1/check?email=a@gmail.com`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ free_email: true });
      // The runtime flags are compiled in: a 20 KB request line reaches the route.
      const long = await fetch(`${server.url}/v1/check?email=${"a".repeat(20_000)}`, { headers: { authorization: `Bearer ${key}` } });
      expect(long.status).toBe(400);
      expect(await long.json()).toMatchObject({ error: "invalid_email" });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 120_000);
});
