import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scaled } from "./support/slowness.ts";

setDefaultTimeout(scaled(150_000));

const ROOT = resolve(import.meta.dir, "..");
/** The promise: a first start in an empty directory answers /healthz within this (on a quiet machine). */
const FIRST_START_MS = scaled(15_000);

/**
 * The compiled binary as a team deploys it: copied alone into an empty directory and run with
 * a bare environment (no Bun, no node_modules, no data beside it) and no network. Built once
 * for the whole file; the baseline inside is cached in dist/baseline/ between runs.
 */
describe("the compiled binary, alone in an empty directory", () => {
  let dir = "";
  let binary = "";
  const env = () => ({ PATH: "/usr/bin:/bin", HOME: dir });
  const run = (args: string[], input?: string) => {
    const r = Bun.spawnSync([binary, ...args], {
      cwd: dir,
      env: env(),
      stdin: input === undefined ? "ignore" : Buffer.from(input),
      timeout: scaled(60_000),
      killSignal: "SIGKILL",
    });
    return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  };
  const servers: ReturnType<typeof Bun.spawn>[] = [];

  /** `serve` on a free port; resolves once /healthz answers 200, with the time that took. */
  async function serve(): Promise<{ url: string; ms: number; output: () => string; stop: () => Promise<number> }> {
    const started = performance.now();
    const proc = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0"], {
      cwd: dir,
      env: { ...env(), RISKCHECK_UPDATE_EVERY: "off" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    servers.push(proc);
    let output = "";
    const decoder = new TextDecoder();
    for (const stream of [proc.stdout, proc.stderr])
      void (async () => {
        for await (const chunk of stream) output += decoder.decode(chunk);
      })();
    const stop = async () => {
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), scaled(10_000));
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    };
    const deadline = started + scaled(60_000);
    while (performance.now() < deadline && proc.exitCode === null) {
      const url = output.match(/listening on (http:\/\/\S+)/)?.[1];
      if (
        url &&
        (await fetch(`${url}/healthz`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        return { url, ms: performance.now() - started, output: () => output, stop };
      await Bun.sleep(50);
    }
    await stop();
    throw new Error(`serve never became healthy:\n${output}`);
  }

  const get = (url: string, key: string) =>
    fetch(url, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }));

  beforeAll(() => {
    const build = Bun.spawnSync([process.execPath, "build.ts"], {
      cwd: ROOT,
      timeout: scaled(240_000),
      killSignal: "SIGKILL",
    });
    expect(build.exitCode, build.stderr.toString()).toBe(0);
    dir = mkdtempSync(join(tmpdir(), "riskcheck-bin-"));
    binary = join(dir, "riskcheck");
    copyFileSync(join(ROOT, "dist", "riskcheck"), binary);
  }, scaled(250_000));

  afterAll(() => {
    for (const proc of servers) proc.kill("SIGKILL");
  });

  test("names its commit and the date of the data it carries", () => {
    expect(run(["version"]).stdout).toMatch(
      /^riskcheck \d+\.\d+\.\d+ \(commit [0-9a-f]{7,}\S*, embedded data of \d{4}-\d{2}-\d{2}\)\n$/,
    );
    expect(readdirSync(dir)).toEqual(["riskcheck"]);
  });

  test("refuses to write into a directory riskcheck did not make", () => {
    const foreign = mkdtempSync(join(tmpdir(), "riskcheck-foreign-"));
    writeFileSync(join(foreign, "hosts"), "127.0.0.1 localhost\n");
    for (const args of [
      ["keys", "create", "--name", "x"],
      ["admin", "set-password"],
      ["email", "allow", "--reason", "r", "example.com"],
      ["serve", "--port", "0"],
      ["update"],
    ]) {
      const r = run([...args, "--data-dir", foreign], "a long enough password");
      expect(r.code).not.toBe(0);
      expect(r.stderr + r.stdout).toContain(`${foreign} is not a riskcheck data directory`);
      expect(readdirSync(foreign)).toEqual(["hosts"]);
    }
    expect(run(["serve", "--data-dir", foreign]).stderr).toContain(
      "Give --data-dir (or RISKCHECK_DATA_DIR) a new or empty directory",
    );
  });

  test("a first start writes the data it carries and serves; keys, answers, a second start, an offline update", async () => {
    const first = await serve();
    let key = "";
    let version = "";
    try {
      expect(first.ms).toBeLessThan(FIRST_START_MS);
      expect(first.output()).toMatch(
        /had no datasets: wrote the data built into this binary \(of \d{4}-\d{2}-\d{2}\) as dataset version (\S+-bundled)/,
      );
      version = readlinkSync(join(dir, "data", "current")).replace("datasets/", "");
      expect(first.output()).toContain(version);
      // The start-up hint is pasteable from anywhere, and its key works on this server.
      const hint = first.output().match(/No API key yet\. Create one with: (.+) \(or in the dashboard/)?.[1];
      expect(hint).toBe(`${binary} keys create --name my-app --data-dir ${join(dir, "data")}`);
      const pasted = Bun.spawnSync(["sh", "-c", hint!], {
        cwd: mkdtempSync(join(tmpdir(), "riskcheck-elsewhere-")),
        env: env(),
        timeout: scaled(20_000),
      });
      expect(pasted.exitCode).toBe(0);
      const created = run(["keys", "create", "--name", "bin", "--json"]);
      expect(created.code).toBe(0);
      key = JSON.parse(created.stdout).key;
      expect(await get(`${first.url}/v1/ip-reputation-check?ip=8.8.8.8`, key)).toMatchObject({
        status: 200,
        body: { country_code: "US", asn: expect.stringMatching(/^AS15169\b/) },
      });
      expect(await get(`${first.url}/v1/check?email=someone@mailinator.com`, key)).toMatchObject({
        status: 200,
        body: { is_disposable: true },
      });
      // The runtime flags are compiled in: a 20 KB request line reaches the route.
      expect(await get(`${first.url}/v1/check?email=${"a".repeat(20_000)}`, key)).toMatchObject({
        status: 400,
        body: { error: "invalid_email" },
      });
    } finally {
      expect(await first.stop()).toBe(0);
    }
    // The written data is an ordinary version: listed, current, in the history.
    const listed = run(["update", "--list"]);
    expect(listed.stdout).toMatch(new RegExp(`^\\s*\\*\\s+${version}\\s`, "m"));

    // A curated file the data directory lacks (a newer release's, or one deleted) is written again; nothing else changes.
    rmSync(join(dir, "data", "curated", "hosting-asns.txt"));
    const second = await serve();
    try {
      expect(second.output()).not.toContain("had no datasets");
      expect(second.output()).toContain(
        `${join(dir, "data")} lacked curated/hosting-asns.txt: wrote them as this riskcheck ships them`,
      );
      expect(existsSync(join(dir, "data", "curated", "hosting-asns.txt"))).toBe(true);
      console.log(
        `binary: first start ${Math.round(first.ms)} ms, second start ${Math.round(second.ms)} ms (healthz 200)`,
      );
      expect(second.ms).toBeLessThan(FIRST_START_MS);

      // Offline: every network source at a closed loopback port. The table says why, the exit status fails, the data in use stays.
      const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
      const port = closed.port;
      closed.stop(true);
      const sources = JSON.parse(readFileSync(join(dir, "data", "sources.json"), "utf8")) as {
        sources: { name: string; url: string }[];
      };
      for (const s of sources.sources) if (!s.url.startsWith("npm:")) s.url = `http://127.0.0.1:${port}/${s.name}`;
      const offline = join(dir, "offline-sources.json");
      writeFileSync(offline, JSON.stringify(sources));
      const updated = run(["update", "--sources", offline]);
      expect(updated.code).toBe(1);
      expect(updated.stdout).toMatch(/^SOURCE\s+RESULT\s+ENTRIES\s+DATA DATE\s+DETAIL$/m);
      expect(updated.stdout).toMatch(/^bundled-geolite2-city-ipv4\s+unchanged\s/m);
      expect(updated.stdout).toMatch(/^spamhaus-drop-v4\s+failed\s.*(ECONNREFUSED|Unable to connect)/m);
      expect(updated.stderr).toContain("the connection failed or timed out");
      const json = run(["update", "--sources", offline, "--json"]);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ version: null, reached: 0 });
      expect(readlinkSync(join(dir, "data", "current"))).toBe(`datasets/${version}`);
      expect(await get(`${second.url}/v1/ip-reputation-check?ip=8.8.8.8`, key)).toMatchObject({
        status: 200,
        body: { country_code: "US", asn: expect.stringMatching(/^AS15169\b/) },
      });
      expect(await get(`${second.url}/v1/check?email=someone@mailinator.com`, key)).toMatchObject({
        status: 200,
        body: { is_disposable: true },
      });
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  test("a data directory a key was made in first lists no version and says how to fill it, not what to copy", async () => {
    const other = join(dir, "other");
    mkdirSync(other);
    expect(run(["keys", "create", "--name", "early", "--data-dir", other]).code).toBe(0);
    expect(existsSync(join(other, "current"))).toBe(false);
    const r = run(["update", "--list", "--data-dir", other]);
    expect(r.stdout).toContain("No dataset version yet");
    expect(r.stdout).not.toContain("shipped");
  });
});
