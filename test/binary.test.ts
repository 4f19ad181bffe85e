import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
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
    // The bundled lists, kept when their packages are not beside the binary, report their data's date, not today's.
    const updated = run("update");
    const kept = [...updated.stdout.toString().matchAll(/^(bundled-\S+)\s+skipped\s.*keeps its data of (\S+)$/gm)];
    expect(kept.length).toBeGreaterThan(0);
    const manifest = JSON.parse(readFileSync(join(dataDir, "current", "manifest.json"), "utf8"));
    for (const [, name, date] of kept) expect(date).toBe((manifest.sources[name].dataDate ?? "").slice(0, 10));
    expect(kept.map(([, , date]) => date)).not.toContain(new Date().toISOString().slice(0, 10));

    // Started with no key, serve prints how to make one: the binary's path and the data directory, pasteable from anywhere.
    const first = await startServe(["--data-dir", dataDir], { PATH: env.PATH, HOME: dir }, [binary]);
    let hinted = "";
    try {
      await first.waitForOutput("No API key yet");
      const hint = first.output().match(/No API key yet\. Create one with: (.+) \(or in the dashboard/)?.[1];
      expect(hint).toBe(`${binary} keys create --name my-app --data-dir ${dataDir}`);
      const pasted = Bun.spawnSync(["sh", "-c", hint!], { cwd: mkdtempSync(join(tmpdir(), "riskcheck-elsewhere-")), env: { PATH: env.PATH, HOME: dir }, timeout: 20_000 });
      expect(pasted.exitCode).toBe(0);
      hinted = pasted.stdout.toString().trimEnd().split("\n").at(-1)!;
      const res = await fetch(`${first.url}/v1/check?email=a@gmail.com`, { headers: { authorization: `Bearer ${hinted}` } });
      expect(res.status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }

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
