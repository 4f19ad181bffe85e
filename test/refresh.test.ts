import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseCommandLine } from "../src/cli/command-spec.ts";
import { UPDATE } from "../src/cli/commands.ts";
import { readManifest, writeManifest } from "../src/datasets/manifest.ts";
import { UpdateChild } from "../src/datasets/refresh-child.ts";
import { eventually } from "./support/deadline.ts";
import { BUNDLED_SOURCES, CLI, makeDataDir, runCli, startServe } from "./support/processes.ts";
import { hostname } from "node:os";
import { scaled } from "./support/slowness.ts";

setDefaultTimeout(scaled(60_000));

const IPSUM = readFileSync(join(import.meta.dir, "fixtures", "feeds", "ipsum.txt"), "utf8");
const requests: string[] = [];
let feeds: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  feeds = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      requests.push(new URL(request.url).pathname);
      return new Response(IPSUM);
    },
  });
});
afterAll(() => feeds?.stop(true));

let setUps = 0;

/** A data directory with the bundled data and one feed on the loopback server, at a path of its own (what its server fetches is told apart), and a key for it. */
function setUp() {
  const dir = makeDataDir();
  const path = `/ipsum-${++setUps}.txt`;
  const ipsum = {
    name: "ipsum",
    url: `http://127.0.0.1:${feeds.port}${path}`,
    format: "address-list",
    feeds: "attack",
    cadence: "2d",
    licence: "Unlicense",
  };
  writeFileSync(join(dir, "sources.json"), JSON.stringify({ sources: [...BUNDLED_SOURCES, ipsum] }));
  const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: join(dir, "r.sqlite") };
  const key = runCli(["keys", "create", "--name", "r"], env).stdout.trimEnd().split("\n").at(-1)!;
  return { env, key, path };
}

/** Records in the current version's manifest that the ipsum feed was fetched a moment ago, as an update would (a full update takes a minute here). */
async function markRefreshedJustNow(dir: string) {
  const file = join(dir, "current", "manifest.json");
  const manifest = (await readManifest(file))!;
  const at = new Date().toISOString();
  const ipsum = {
    origin: "http://127.0.0.1/ipsum.txt",
    url: "http://127.0.0.1/ipsum.txt",
    format: "address-list",
    feeds: "attack",
    licence: "Unlicense",
    fetchedAt: at,
    checkedAt: at,
    dataDate: at,
    dataDateFrom: "content" as const,
    entries: 1,
    bytes: 1,
    raw: "ipsum",
  };
  // Written to a new file: the manifest is a hard link to the bundled data's.
  writeManifest(file, { ...manifest, sources: { ...manifest.sources, ipsum } });
}

describe("serve keeps its data fresh by itself", () => {
  // Each test has a data directory and a feed path of its own: they run together.
  test.concurrent("data never refreshed: the first refresh comes at once, and /healthz warns before and not after", async () => {
    const { env, key } = setUp();
    const server = await startServe([], { ...env, RISKCHECK_UPDATE_EVERY: "3s", RISKCHECK_AUDIT_LOG: "stdout" });
    try {
      const health = async () =>
        (await (await fetch(`${server.url}/healthz`)).json()) as {
          warnings: string[];
          refresh: Record<string, unknown>;
          sources: { name: string }[];
        };
      const attack = async () =>
        (
          (await (
            await fetch(`${server.url}/v1/ip-reputation-check?ip=77.90.185.20`, {
              headers: { authorization: `Bearer ${key}` },
            })
          ).json()) as { reputation: { attack: number } }
        ).reputation.attack;
      const before = await health();
      expect(before.warnings.some((w) => w.startsWith("no reputation feed is loaded"))).toBe(true);
      expect(before.refresh).toMatchObject({ every_seconds: 3, last_success_at: null });
      const deadline = Date.now() + scaled(30_000);
      while ((await attack()) !== 10 && Date.now() < deadline) await Bun.sleep(200);
      expect(await attack()).toBe(10);
      // The new data serves from the swap; the refresh's success is recorded a moment later, when
      // its reload returns (after releasing the replaced version's pages).
      await eventually(
        "the refresh's success on /healthz",
        5_000,
        async () => (await health()).refresh.last_success_at !== null,
      );
      const after = await health();
      expect(after.warnings.some((w) => w.startsWith("no reputation feed is loaded"))).toBe(false);
      expect(after.sources.map((s) => s.name)).toContain("ipsum");
      await server.waitForOutput(/refresh: dataset version \S+ installed/);
      // On the record as the server's doing, and as a JSON line on the server's standard output.
      const version = /refresh: dataset version (\S+) installed/.exec(server.output())![1];
      await server.waitForOutput(
        `"action":"update.installed","outcome":"succeeded","target":"dataset version ${version}"`,
      );
      const [installed] = JSON.parse(runCli(["audit", "list", "--action", "update", "--json"], env).stdout);
      expect(installed).toMatchObject({
        action: "update.installed",
        channel: "server",
        actor: `scheduled update on ${hostname()}`,
        target: `dataset version ${version}`,
      });
    } finally {
      await server.stop();
    }
  });

  test.concurrent("off: nothing is fetched, and /healthz says the data was never refreshed", async () => {
    const { env, path } = setUp();
    const server = await startServe([], { ...env, RISKCHECK_UPDATE_EVERY: "off" });
    try {
      await Bun.sleep(3_000);
      expect(requests.filter((p) => p === path)).toEqual([]);
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { warnings: string[]; refresh: unknown };
      expect(health.refresh).toBeNull();
      expect(server.output()).toContain("automatic refresh is off (RISKCHECK_UPDATE_EVERY=off)");
      // The command it prints runs as printed: update takes the data directory, not the database (RISKCHECK_DB here).
      const command = /to refresh, run: (.+)$/m.exec(server.output())![1]!;
      const args = command.slice(command.indexOf(" update ") + " update ".length).split(" ");
      expect(parseCommandLine(UPDATE, args).values["data-dir"]).toBe(resolve(env.RISKCHECK_DATA_DIR));
      // /healthz, which anyone may read, names the command without the install's paths (the dashboard gives it whole).
      expect(health.warnings).toContainEqual(
        "automatic refresh is off (RISKCHECK_UPDATE_EVERY=off) and the data has never been refreshed from the network; " +
          "run: riskcheck update",
      );
      expect(health.warnings.join("\n")).not.toContain(resolve(env.RISKCHECK_DATA_DIR));
    } finally {
      await server.stop();
    }
  });

  test.concurrent("off by the flag: the start-up line and /healthz name the flag", async () => {
    const { env } = setUp();
    const server = await startServe(["--update-every", "off"], env);
    try {
      await server.waitForOutput("datasets: automatic refresh is off (--update-every off); to refresh, run: ");
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { warnings: string[] };
      expect(health.warnings).toContainEqual(expect.stringContaining("automatic refresh is off (--update-every off)"));
      expect(health.warnings.join("\n")).not.toContain('"riskcheck update"');
    } finally {
      await server.stop();
    }
  });

  test.concurrent("a period of 30 days (past setTimeout's 24.8-day limit) waits its 30 days, not 1 ms", async () => {
    const { env, path } = setUp();
    await markRefreshedJustNow(env.RISKCHECK_DATA_DIR);
    const server = await startServe([], { ...env, RISKCHECK_UPDATE_EVERY: "30d" });
    try {
      await Bun.sleep(2_000);
      expect(server.output()).not.toContain("TimeoutOverflowWarning");
      expect(server.output()).not.toContain("refresh:");
      expect(requests.filter((p) => p === path)).toEqual([]);
      const health = (await (await fetch(`${server.url}/healthz`)).json()) as { refresh: { next_at: string } };
      expect(Date.parse(health.refresh.next_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    } finally {
      await server.stop();
    }
  });

  test("a period that is not one is a usage error", () => {
    const { code, stderr } = runCli(["serve", "--port", "0"], { RISKCHECK_UPDATE_EVERY: "daily" });
    expect(code).toBe(2);
    expect(stderr).toContain('RISKCHECK_UPDATE_EVERY: "daily" is not a period such as 24h');
  });
});

describe("a refresh that reaches no source is a failure", () => {
  /** A loopback port nothing listens on, as a feed server that is down. */
  const closedPort = () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    return port;
  };
  const refreshWith = (extra: object[]) => {
    const dir = makeDataDir();
    writeFileSync(join(dir, "sources.json"), JSON.stringify({ sources: [...BUNDLED_SOURCES, ...extra] }));
    return new UpdateChild([process.execPath, CLI], ["--data-dir", dir], process.env, Date.now).run();
  };
  const feed = (name: string, url: string) => ({ name, url, format: "address-list", feeds: "attack", licence: "test" });

  test("every download failing (the network is down) is an error, so it is retried an hour later and /healthz warns", async () => {
    const result = await refreshWith([feed("ipsum", `http://127.0.0.1:${closedPort()}/ipsum.txt`)]);
    expect(result.version).toBeNull();
    expect(result.failedSources.map((s) => s.name)).toEqual(["ipsum"]);
    expect(result.error).toBe("no source could be reached (1 failed)");
  });

  test("one source failing while another is reached is a success that names the failure", async () => {
    const result = await refreshWith([
      feed("ipsum", `http://127.0.0.1:${feeds.port}/ipsum.txt`),
      feed("gone", `http://127.0.0.1:${closedPort()}/gone.txt`),
    ]);
    expect(result.version).not.toBeNull();
    expect(result.error).toBeNull();
    expect(result.failedSources.map((s) => s.name)).toEqual(["gone"]);
  });
});

describe("a first start that says what it does", () => {
  const closedPort = () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    return port;
  };
  /** A data directory whose sources are the bundled ones and `count` feeds that cannot be reached, as on a machine without the internet. */
  const offlineDataDir = (count: number) => {
    const dir = makeDataDir();
    const port = closedPort();
    const unreachable = Array.from({ length: count }, (_, i) => ({
      name: `feed-${i}`,
      url: `http://127.0.0.1:${port}/feed-${i}.txt`,
      format: "address-list",
      feeds: "attack",
      licence: "test",
    }));
    writeFileSync(join(dir, "sources.json"), JSON.stringify({ sources: [...BUNDLED_SOURCES, ...unreachable] }));
    return dir;
  };

  // Each test has a data directory of its own and none reaches the feed server: they run together.
  test.concurrent("the start-up log says the server refreshes from the internet by itself, every 24h as configured, and how to switch it off; its key hint names the data directory", async () => {
    const dir = makeDataDir();
    const server = await startServe([], { RISKCHECK_DATA_DIR: dir, RISKCHECK_UPDATE_EVERY: "24h" });
    try {
      await server.waitForOutput("No API key yet");
      const output = server.output();
      expect(output).toContain(
        `datasets: this server refreshes its data from the internet by itself, from the sources in ${join(dir, "sources.json")}, every 24h; next at `,
      );
      expect(output).toContain(
        "(the data has never been refreshed, so within a minute of start). --update-every off (RISKCHECK_UPDATE_EVERY=off) switches it off",
      );
      expect(output).not.toMatch(/every 1d/);
      expect(output).toContain(
        `No API key yet. Create one with: npx bun src/cli/main.ts keys create --name my-app --data-dir ${dir} (or in the dashboard at ${server.url}/dashboard)`,
      );
    } finally {
      await server.stop();
    }
  });

  test.concurrent("offline, the first refresh logs one line and /healthz shows a few grouped warnings, not one per source", async () => {
    const dir = offlineDataDir(12);
    const server = await startServe([], { RISKCHECK_DATA_DIR: dir, RISKCHECK_UPDATE_EVERY: "3s" });
    try {
      await server.waitForOutput(/refresh: nothing installed.*\n/, 30_000);
      const line = server
        .output()
        .split("\n")
        .find((l) => l.startsWith("refresh: "))!;
      expect(line).toStartWith(
        "refresh: nothing installed, the current data keeps serving: no source could be reached (12 failed); could not fetch 12 sources (feed-0, feed-1 and 10 more; none has data yet): the connection failed or timed out. Fix: ",
      );
      expect(line).not.toContain("kept their data");
      const { warnings } = (await (await fetch(`${server.url}/healthz`)).json()) as { warnings: string[] };
      expect(warnings.filter((w) => w.includes("could not fetch"))).toEqual([
        expect.stringContaining("could not fetch 12 sources"),
      ]);
      expect(warnings.length).toBeLessThanOrEqual(4);
    } finally {
      await server.stop();
    }
  });

  test.concurrent("riskcheck update offline: exit 1, one stderr line naming the failure and a fix that can help, no advice to --force", () => {
    const dir = offlineDataDir(3);
    const { code, stdout, stderr } = runCli(["update", "--data-dir", dir]);
    expect(code).toBe(1);
    expect(stderr.trimEnd().split("\n")).toEqual([
      "riskcheck: could not fetch 3 sources (feed-0, feed-1, feed-2; none has data yet): the connection failed or timed out. Fix: check this machine's network and DNS; behind a proxy, set HTTPS_PROXY (and HTTP_PROXY); to use only the bundled data, set RISKCHECK_UPDATE_EVERY=off or give --sources a file without network sources.",
    ]);
    expect(stdout).toMatch(/Nothing changed \([\d.]+ s\): the data in use keeps serving\.\n$/);
    expect(stdout).not.toContain("--force");
  });
});
