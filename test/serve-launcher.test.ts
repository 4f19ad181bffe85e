import { expect, setDefaultTimeout, test } from "bun:test";
import { resolve } from "node:path";
import { packageScriptLaunchers } from "../src/runtime/launchers.ts";
import { makeDataDir } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// npx, bun run and the server start one after the other on a loaded machine.
setDefaultTimeout(scaled(60_000));

const ROOT = resolve(import.meta.dir, "..");

test("no package script, no launcher to watch: a server started directly runs on its own", () => {
  expect(packageScriptLaunchers({})).toEqual([]);
});

test("`npx bun run start` signalled by npx's pid stops the server too, within seconds", async () => {
  // A session of its own: the teardown can end every process of it, whatever this test left.
  const proc = Bun.spawn(["npx", "bun", "run", "start", "--port", "0"], {
    cwd: ROOT,
    env: {
      ...process.env,
      RISKCHECK_DATA_DIR: makeDataDir(),
      RISKCHECK_UPDATE_EVERY: "off",
      RISKCHECK_HOST: "127.0.0.1",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let output = "";
  const decoder = new TextDecoder();
  for (const stream of [proc.stdout, proc.stderr])
    void (async () => {
      for await (const chunk of stream) output += decoder.decode(chunk);
    })();
  const answers = async (url: string) => {
    try {
      return (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(scaled(1_000)) })).ok;
    } catch {
      return false;
    }
  };
  try {
    let url: string | undefined;
    for (
      const until = Date.now() + scaled(45_000);
      url === undefined && Date.now() < until && proc.exitCode === null;
      await Bun.sleep(50)
    )
      url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    expect(url, output).toBeDefined();
    expect(await answers(url!)).toBe(true);
    proc.kill("SIGTERM");
    const signalled = performance.now();
    while ((await answers(url!)) && performance.now() - signalled < scaled(10_000)) await Bun.sleep(100);
    expect(await answers(url!)).toBe(false);
    expect(performance.now() - signalled).toBeLessThan(scaled(10_000));
    expect(output).toMatch(/its launcher exited \(pid \d+, .+\): stopping with it/);
  } finally {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // The whole session has exited already.
    }
  }
});
