import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ServeProcess, makeDataDir, runCli, runCliAsync, startServe } from "./support/processes.ts";
import { BUNDLED_DATA_DIR } from "./support/test-app.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(30_000);

/** A loopback feed server the test controls: fixed bodies with ETags, or failures on demand. */
const files = new Map<string, { body: Uint8Array | string; etag: string }>();
const broken = new Set<string>();
const hits: { path: string; status: number }[] = [];
let feeds: ReturnType<typeof Bun.serve>;

function publish(path: string, body: Uint8Array | string) {
  files.set(path, { body, etag: `"${Bun.hash(body).toString(16)}"` });
}

const GOOD_COUNTRY = Bun.gzipSync(await Bun.file(join(BUNDLED_DATA_DIR, "current/geo/country.mmdb")).bytes());

let dataDir: string;
let env: Record<string, string>;
let server: ServeProcess;
let key: string;

beforeAll(async () => {
  feeds = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      const file = files.get(path);
      let status = 200;
      let response: Response;
      if (broken.has(path)) response = new Response("upstream trouble", { status: (status = 503) });
      else if (!file) response = new Response("missing", { status: (status = 404) });
      else if (request.headers.get("if-none-match") === file.etag) response = new Response(null, { status: (status = 304) });
      else response = new Response(file.body, { headers: { etag: file.etag } });
      hits.push({ path, status });
      return response;
    },
  });
  const base = `http://127.0.0.1:${feeds.port}`;
  publish("/ipsum.txt", "# ipsum\n81.2.69.142\t12\n10.1.2.3\t50\n198.51.100.7\t3\n");
  publish("/drop.json", '{"cidr":"203.0.114.0/24","sblid":"SBL1"}\n{"cidr":"10.0.0.0/8","sblid":"SBL2"}\n');
  publish("/disposable.conf", "freshtrash.io\nmailinator.com\n");
  publish("/vpn-asn.txt", "AS64500 # test network\n");
  // 81.2.69.0/24 as numbers, in the ip-location-db "-num" CSV layout.
  publish("/asn-ipv4-num.csv", '1359103232,1359103487,64500,"Test Net, Ltd"\n');
  // MaxMind ships its databases as a .tar.gz with one folder inside.
  const city = await Bun.file(join(BUNDLED_DATA_DIR, "current/geo/city-ipv4.mmdb")).bytes();
  publish("/GeoLite2-City.tar.gz", Bun.gzipSync(await new Bun.Archive({ "GeoLite2-City_20261120/GeoLite2-City.mmdb": city, "GeoLite2-City_20261120/LICENSE.txt": "test" }).bytes()));
  publish("/country.mmdb.gz", GOOD_COUNTRY);

  dataDir = makeDataDir();
  writeFileSync(
    join(dataDir, "sources.json"),
    JSON.stringify({
      sources: [
        { name: "ipsum", url: `${base}/ipsum.txt`, format: "address-list", feeds: "attack", licence: "test" },
        { name: "drop", url: `${base}/drop.json`, format: "prefix-json", feeds: "confirmed-bad", licence: "test" },
        { name: "disposable", url: `${base}/disposable.conf`, format: "domain-list", feeds: "disposable", licence: "test" },
        { name: "vpn-asns", url: `${base}/vpn-asn.txt`, format: "asn-list", feeds: "vpn", licence: "test" },
        { name: "country", url: `${base}/country.mmdb.gz`, format: "mmdb", feeds: "country", licence: "test" },
        { name: "city-v4", url: `${base}/GeoLite2-City.tar.gz`, format: "mmdb", feeds: "city-ipv4", licence: "test" },
        { name: "asn", url: `${base}/asn-ipv4-num.csv`, format: "asn-csv", feeds: "asn", licence: "CC BY 4.0 test" },
        { name: "licensed", url: `${base}/x?key=\${TEST_LICENCE_KEY}`, format: "mmdb", feeds: "city", requires: ["TEST_LICENCE_KEY"], licence: "test" },
      ],
    }),
  );
  env = { RISKCHECK_DATA_DIR: dataDir, RISKCHECK_DB: join(dataDir, "u.sqlite"), RISKCHECK_RATE_PER_MINUTE: "0", RISKCHECK_IP_QUOTA_PER_MONTH: "0" };
  key = runCli(["keys", "create", "--name", "u"], env).stdout.trimEnd().split("\n").at(-1)!;
  server = await startServe([], env);
});

afterAll(async () => {
  await server?.stop();
  feeds?.stop(true);
});

const ask = async (query: string) => {
  const res = await fetch(`${server.url}${query}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
};
const waitFor = async (predicate: () => Promise<boolean>) => {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await Bun.sleep(100);
  }
  throw new Error("timed out waiting for the server to load the new datasets");
};
const update = (...args: string[]) => runCliAsync(["update", ...args], env);

describe("riskcheck update against a loopback feed server", () => {
  test("before: no counters, the fixture lists", async () => {
    expect((await ask("/v1/ip-reputation-check?ip=81.2.69.142")).reputation).toMatchObject({ attack: 0, reputation: "ok", kind: [] });
    expect((await ask("/v1/check?email=a@freshtrash.io")).is_disposable).toBe(false);
  });

  test("a first update installs every source; the running server answers from it", async () => {
    const run = await update();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ipsum\s+updated\s+3\b/);
    expect(run.stdout).toMatch(/licensed\s+skipped.*TEST_LICENCE_KEY/);
    expect(run.stdout).toContain("3 feed entries clipped"); // 10.1.2.3, 198.51.100.7 (documentation) and DROP's 10.0.0.0/8
    await waitFor(async () => (await ask("/v1/ip-reputation-check?ip=81.2.69.142")).reputation.attack === 12);
    const answer = await ask("/v1/ip-reputation-check?ip=81.2.69.142&explain=1");
    expect(answer.reputation).toMatchObject({ attack: 12, sum: 12, reputation: "warning", risky: true, kind: ["vpn"] });
    expect(answer.reputation.reasons.sources).toEqual(["ipsum"]);
    expect(answer).toMatchObject({ asn: "AS64500 Test Net, Ltd", country_code: "GB", city: "Bracknell" });
    expect((await ask("/v1/ip-reputation-check?ip=203.0.114.9")).reputation).toMatchObject({ reputation: "bad", risky: true });
    expect((await ask("/v1/ip-reputation-check?ip=10.1.2.3")).reputation.reputation).toBe("ok");
    expect((await ask("/v1/check?email=a@freshtrash.io")).is_disposable).toBe(true);
    const health = await ask("/healthz");
    expect(health.dataset_version).toEndWith("-update");
    expect(health.sources.find((x: { name: string }) => x.name === "ipsum")).toMatchObject({ entries: 3, age_days: 0 });
    const about = (await (await fetch(`${server.url}/v1/about`)).json()) as { sources: { name: string; licence: string; origin: string }[] };
    expect(about.sources.find((x) => x.name === "asn")).toMatchObject({ licence: "CC BY 4.0 test", origin: expect.stringContaining("/asn-ipv4-num.csv") });
  });

  test("an unchanged source is skipped with a 304", async () => {
    hits.length = 0;
    const run = await update();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ipsum\s+unchanged/);
    expect(run.stdout).toContain("Nothing changed");
    expect(hits.filter((h) => h.path === "/ipsum.txt").map((h) => h.status)).toEqual([304]);
  });

  test("a broken download keeps the old data, and the others still update", async () => {
    broken.add("/ipsum.txt");
    publish("/country.mmdb.gz", Bun.gzipSync(new TextEncoder().encode("not an mmdb".repeat(100))));
    publish("/disposable.conf", "freshtrash.io\nmailinator.com\nnewtrash.io\n");
    const run = await update();
    broken.delete("/ipsum.txt");
    publish("/country.mmdb.gz", GOOD_COUNTRY);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/ipsum\s+failed\s+HTTP 503/);
    expect(run.stdout).toMatch(/country\s+failed.*not a valid MaxMind DB/);
    expect(run.stdout).toMatch(/disposable\s+updated/);
    await waitFor(async () => (await ask("/v1/check?email=a@newtrash.io")).is_disposable === true);
    expect((await ask("/v1/ip-reputation-check?ip=81.2.69.142")).reputation.attack).toBe(12);
    expect((await ask("/v1/ip-reputation-check?ip=1.1.1.1")).country_code).toBe("AU");
  });

  test("a list that shrank too much is refused unless forced", async () => {
    publish("/ipsum.txt", "# ipsum\n");
    const refused = await update("--only", "ipsum");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/ipsum\s+failed\s+no entries/);
    publish("/ipsum.txt", "# ipsum\n81.2.69.142\t12\n10.1.2.3\t50\n198.51.100.7\t3\n");
  });

  test("rollback restores the previous version and the server follows", async () => {
    const before = readlinkSync(join(dataDir, "current"));
    const run = await update("--rollback");
    expect(run.code).toBe(0);
    expect(readlinkSync(join(dataDir, "current"))).not.toBe(before);
    expect(readlinkSync(join(dataDir, "previous"))).toBe(before);
    await waitFor(async () => (await ask("/v1/check?email=a@newtrash.io")).is_disposable === false);
    expect((await ask("/v1/check?email=a@freshtrash.io")).is_disposable).toBe(true);
  });

  test("a server under steady load answers every request during an update", async () => {
    publish("/ipsum.txt", "# ipsum\n81.2.69.142\t30\n8.8.4.4\t1\n");
    let stop = false;
    const statuses: number[] = [];
    const load = (async () => {
      while (!stop) {
        const batch = await Promise.all(
          ["/v1/ip-reputation-check?ip=81.2.69.142", "/v1/check?email=a@gmail.com", "/v1/ip-reputation-check?ip=2001:4860:4860::8888"].map((q) =>
            fetch(`${server.url}${q}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
          ),
        );
        statuses.push(...batch);
      }
    })();
    const run = await update();
    expect(run).toMatchObject({ code: 0 });
    await waitFor(async () => (await ask("/v1/ip-reputation-check?ip=81.2.69.142")).reputation.attack === 30);
    stop = true;
    await load;
    expect(statuses.length).toBeGreaterThan(50);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  test("sources.json errors name the entry and the field", async () => {
    const bad = join(dataDir, "bad-sources.json");
    writeFileSync(bad, JSON.stringify({ sources: [{ name: "Bad Name", url: "ftp://x", format: "csv", feeds: "x" }] }));
    const run = await update("--sources", bad);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("sources[0].name");
    expect(run.stderr).toContain("sources[0].url");
    expect(run.stderr).toContain("sources[0].format");
    expect(run.stderr).toContain("sources[0].licence");
    expect(existsSync(join(dataDir, "current"))).toBe(true);
  });
});

describe("staging never writes through to the current version", () => {
  test("a failed install leaves the current manifest as it was", async () => {
    const dir = makeDataDir();
    const manifest = join(dir, "current", "manifest.json");
    const before = await Bun.file(manifest).text();
    const feed = join(dir, "feed.txt");
    writeFileSync(feed, "81.2.69.142\n");
    // A curated file that no longer parses makes the staged version fail to load.
    const sources = join(dir, "s.json");
    writeFileSync(sources, JSON.stringify({ sources: [{ name: "f", url: `file://${feed}`, format: "address-list", feeds: "attack", licence: "test" }] }));
    const { rmSync, cpSync } = await import("node:fs");
    rmSync(join(dir, "curated"));
    cpSync(join(BUNDLED_DATA_DIR, "curated"), join(dir, "curated"), { recursive: true, dereference: true });
    writeFileSync(join(dir, "curated", "vpn-asns.txt"), "not an AS\n");
    const run = await runCliAsync(["update", "--data-dir", dir, "--sources", sources]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the new dataset version was not installed");
    expect(await Bun.file(manifest).text()).toBe(before);
    expect(readlinkSync(join(dir, "current"))).toBe("datasets/fixture");
  });
});
