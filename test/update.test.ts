import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, readdirSync, readlinkSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BUNDLED_SOURCES,
  type ServeProcess,
  makeDataDir,
  runCli,
  runCliAsync,
  startServe,
} from "./support/processes.ts";
import { BUNDLED_DATA_DIR } from "./support/bundled-data.ts";
import { excerptMmdb } from "./support/mmdb-writer.ts";
import { scaled } from "./support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(120_000));

const FIXTURES = join(import.meta.dir, "fixtures", "feeds");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

/** A loopback feed server the test controls: fixed bodies with ETags, failures or delays on demand. */
const files = new Map<string, { body: Uint8Array | string; etag: string }>();
const broken = new Set<string>();
const slow = new Map<string, Promise<void>>();
const hits: { path: string; status: number }[] = [];
let feeds: ReturnType<typeof Bun.serve>;

function publish(path: string, body: Uint8Array | string) {
  files.set(path, { body, etag: `"${Bun.hash(body).toString(16)}"` });
}

// The feeds' archives are packed at the fastest level: what is tested is their layout, not how small they are.
const FAST = { level: 1 } as const;
const GOOD_COUNTRY = Bun.gzipSync(await Bun.file(join(BUNDLED_DATA_DIR, "current/geo/country.mmdb")).bytes(), FAST);
const HTML_WALL = `<!DOCTYPE html>\n<html><head><title>Just a moment...</title></head>\n<body>\n${"<p>Please enable JavaScript and cookies to continue</p>\n".repeat(5000)}</body></html>\n`;

let dataDir: string;
let env: Record<string, string>;
let server: ServeProcess;
let key: string;
let base: string;
const sourcesWith = (extra: object[]) => JSON.stringify({ sources: [...BUNDLED_SOURCES, ...extra] });
let testSources: ({ name: string } & Record<string, unknown>)[];

beforeAll(async () => {
  feeds = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      await slow.get(path);
      const file = files.get(path);
      let status = 200;
      let response: Response;
      if (broken.has(path)) response = new Response("upstream trouble", { status: (status = 503) });
      else if (!file) response = new Response("missing", { status: (status = 404) });
      else if (request.headers.get("if-none-match") === file.etag)
        response = new Response(null, { status: (status = 304) });
      else
        response = new Response(file.body, {
          headers: { etag: file.etag, "last-modified": "Fri, 21 Aug 2026 10:00:00 GMT" },
        });
      hits.push({ path, status });
      return response;
    },
  });
  base = `http://127.0.0.1:${feeds.port}`;
  publish("/ipsum.txt", fixture("ipsum.txt"));
  publish("/drop.json", '{"cidr":"203.0.114.0/24","sblid":"SBL1"}\n{"cidr":"10.0.0.0/8","sblid":"SBL2"}\n');
  publish("/disposable.conf", fixture("mailchecker-list.txt"));
  publish("/vpn-ipv4.txt", fixture("x4bnet-vpn-ipv4.txt"));
  publish("/vpn-asn.txt", "AS64500 # test network\n");
  // 81.2.69.0/24 as numbers, in the ip-location-db "-num" CSV layout.
  publish("/asn-ipv4-num.csv", '1359103232,1359103487,64500,"Test Net, Ltd"\n');
  // MaxMind ships its databases as a .tar.gz with one folder inside. The networks of the addresses
  // asked below, with their records from the bundled city data: compiling all of it takes seconds.
  const city = excerptMmdb(await Bun.file(join(BUNDLED_DATA_DIR, "current/geo/city-ipv4.mmdb")).bytes(), [
    "81.2.69.142",
    "45.12.0.9",
    "77.90.185.20",
    "66.249.66.1",
    "8.8.4.4",
    "203.0.114.9",
  ]);
  publish(
    "/GeoLite2-City.tar.gz",
    Bun.gzipSync(
      await new Bun.Archive({
        "GeoLite2-City_20261120/GeoLite2-City.mmdb": city,
        "GeoLite2-City_20261120/LICENSE.txt": "test",
      }).bytes(),
      FAST,
    ),
  );
  publish("/country.mmdb.gz", GOOD_COUNTRY);

  dataDir = makeDataDir();
  testSources = [
    { name: "ipsum", url: `${base}/ipsum.txt`, format: "address-list", feeds: "attack", licence: "Unlicense" },
    { name: "drop", url: `${base}/drop.json`, format: "prefix-json", feeds: "confirmed-bad", licence: "test" },
    { name: "disposable", url: `${base}/disposable.conf`, format: "domain-list", feeds: "disposable", licence: "MIT" },
    { name: "vpn-ranges", url: `${base}/vpn-ipv4.txt`, format: "address-list", feeds: "vpn", licence: "MIT" },
    { name: "vpn-asns", url: `${base}/vpn-asn.txt`, format: "asn-list", feeds: "vpn", licence: "test" },
    {
      name: "country",
      url: `${base}/country.mmdb.gz`,
      format: "mmdb",
      feeds: "country",
      licence: "test",
      supersedes: ["bundled-whois-country"],
    },
    {
      name: "city-v4",
      url: `${base}/GeoLite2-City.tar.gz`,
      format: "mmdb",
      feeds: "city-ipv4",
      licence: "test",
      supersedes: ["bundled-geolite2-city-ipv4"],
    },
    { name: "asn", url: `${base}/asn-ipv4-num.csv`, format: "asn-csv", feeds: "asn", licence: "CC BY 4.0 test" },
    {
      name: "licensed",
      url: `${base}/x?key=\${RISKCHECK_SOURCE_TEST_LICENCE_KEY}`,
      format: "mmdb",
      feeds: "city",
      requires: ["RISKCHECK_SOURCE_TEST_LICENCE_KEY"],
      licence: "test",
    },
  ];
  writeFileSync(join(dataDir, "sources.json"), sourcesWith(testSources));
  env = {
    RISKCHECK_DATA_DIR: dataDir,
    RISKCHECK_DB: join(dataDir, "u.sqlite"),
    RISKCHECK_RATE_PER_MINUTE: "0",
    RISKCHECK_IP_QUOTA_PER_MONTH: "0",
  };
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
const disposable = async (domain: string) => (await ask(`/v1/check?email=a@${domain}`)).is_disposable as boolean;
const waitFor = async (predicate: () => Promise<boolean>) => {
  // A reload of the bundled data takes seconds; with the machine's two cores busy, tens of them.
  const deadline = Date.now() + scaled(30_000);
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await Bun.sleep(100);
  }
  throw new Error("timed out waiting for the server to load the new datasets");
};
const update = (...args: string[]) => runCliAsync(["update", ...args], env);
const current = () => readlinkSync(join(dataDir, "current"));
const manifestOf = (version: string) =>
  JSON.parse(readFileSync(join(dataDir, "datasets", version, "manifest.json"), "utf8"));
const servedVersion = async () => (await ask("/healthz")).dataset_version as string;

describe("riskcheck update against a loopback feed server", () => {
  test("before: the bundled data alone", async () => {
    expect((await ask("/v1/ip-reputation-check?ip=77.90.185.20")).reputation).toMatchObject({
      attack: 0,
      reputation: "ok",
    });
    expect(await disposable("gmai.com")).toBe(true); // only the bundled npm list has it
    expect(await disposable("000email.com")).toBe(false); // only mailchecker has it
  });

  test("a first update adds every source to what the bundled data gives", async () => {
    // The city excerpt's 6 networks in place of the bundled 3.7 million: the output guard would refuse
    // that shrink (the guard's own tests are below); every later update is guarded as usual.
    const run = await update("--max-shrink", "1");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ipsum\s+updated\s+40\s+2026-08-22/);
    expect(run.stdout).toMatch(/disposable\s+updated\s+30\b/);
    expect(run.stdout).toMatch(/licensed\s+skipped.*RISKCHECK_SOURCE_TEST_LICENCE_KEY/);
    expect(run.stdout).toMatch(/bundled-disposable-domains\s+unchanged/);
    // The disposable output grows by the maintained list's names the npm list lacks.
    const row = run.stdout.split("\n").find((l) => l.startsWith("disposable-domains "))!;
    const [, before, after] = row.split(/\s+/).map(Number);
    expect(after).toBeGreaterThan(before);
    expect(after - before).toBe(16); // the excerpt's names that no bundled list has
    expect(run.stdout).toMatch(/reputation-index .*1 feed entries clipped/); // DROP lists 10.0.0.0/8
    await waitFor(async () => (await ask("/v1/ip-reputation-check?ip=77.90.185.20")).reputation.attack === 10);
    expect(await disposable("gmai.com")).toBe(true);
    expect(await disposable("000email.com")).toBe(true);
    expect(await disposable("guerrillamail.com")).toBe(true);
    const answer = await ask("/v1/ip-reputation-check?ip=81.2.69.142&explain=1");
    expect(answer).toMatchObject({ asn: "AS64500 Test Net, Ltd", country_code: "GB", city: "Bracknell" });
    expect(answer.reputation.kind).toEqual(["vpn"]);
    expect((await ask("/v1/ip-reputation-check?ip=203.0.114.9")).reputation).toMatchObject({
      reputation: "bad",
      risky: true,
    });
    expect((await ask("/v1/ip-reputation-check?ip=10.1.2.3")).reputation.reputation).toBe("ok");
  });

  test("update compiles each new MMDB output into the table serve maps, its CRC-32 and SHA-256 in the manifest", () => {
    const version = current().replace("datasets/", "");
    const manifest = manifestOf(version);
    const tableOf = (v: string, output: string) => {
      const compiled = manifestOf(v).outputs[output].compiled as {
        file: string;
        sha256: string;
        crc32: number;
        bytes: number;
      };
      const file = join(dataDir, "datasets", v, compiled.file);
      const bytes = readFileSync(file); // tens of MB: read once for both digests
      expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(compiled.sha256);
      expect(Bun.hash.crc32(bytes)).toBe(compiled.crc32);
      expect(bytes.length).toBe(compiled.bytes);
      return statSync(file).ino;
    };
    // The IPv4 city database came from the test's own source: compiled anew. The IPv6 city one is
    // the bundled file, unchanged, and the test's country source serves the bundled bytes: their
    // tables are the base version's, hard-linked.
    expect(tableOf(version, "city-ipv4")).not.toBe(tableOf(manifest.base, "city-ipv4"));
    for (const output of ["country", "city-ipv6"])
      expect(tableOf(version, output)).toBe(tableOf(manifest.base, output));
    expect(manifest.outputs.country.sources).toEqual(["country"]);
  });

  test("every source reports the date of its data, not when it was installed or fetched", async () => {
    const health = await ask("/healthz");
    const source = (name: string) => health.sources.find((s: { name: string }) => s.name === name);
    expect(source("ipsum")).toMatchObject({
      data_date: "2026-08-22T01:00:29.000Z",
      data_date_from: "content",
      entries: 40,
      used_by: ["reputation-index"],
    });
    expect(source("disposable")).toMatchObject({
      data_date: "2026-08-21T10:00:00.000Z",
      data_date_from: "last-modified",
    });
    expect(source("bundled-ivolo-disposable")).toMatchObject({
      data_date: "2024-12-07T08:23:11.000Z",
      data_date_from: "package",
    });
    expect(source("bundled-ivolo-disposable").age_days).toBeGreaterThan(300);
    expect(source("bundled-geolite2-city-ipv6")).toMatchObject({ data_date_from: "content", used_by: ["city-ipv6"] });
    // Superseded by the test's own copy: still held, feeding nothing, and not "in use".
    expect(source("bundled-whois-country").used_by).toEqual([]);
    const about = (await (await fetch(`${server.url}/v1/about`)).json()) as {
      sources: { name: string; licence: string; data_date: string }[];
    };
    expect(about.sources.map((s) => s.name)).not.toContain("bundled-whois-country");
    expect(about.sources.find((s) => s.name === "bundled-ivolo-disposable")).toMatchObject({
      data_date: "2024-12-07T08:23:11.000Z",
      licence: expect.stringContaining("MIT"),
    });
    expect(about.sources.find((s) => s.name === "asn")).toMatchObject({ licence: "CC BY 4.0 test" });
    // /metrics reports the age of the data served: not of a copy superseded by a newer one.
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('riskcheck_dataset_age_seconds{dataset="bundled-ivolo-disposable"}');
    expect(metrics).toContain('riskcheck_dataset_age_seconds{dataset="country"}');
    expect(metrics).not.toContain('riskcheck_dataset_age_seconds{dataset="bundled-whois-country"}');
  });

  test("unchanged sources cost a 304, and nothing is rebuilt", async () => {
    hits.length = 0;
    const before = current();
    const run = await update();
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/ipsum\s+unchanged/);
    expect(run.stdout).toContain("Nothing changed");
    expect(hits.filter((h) => h.path === "/ipsum.txt").map((h) => h.status)).toEqual([304]);
    expect(current()).toBe(before);
  });

  test("--force rebuilds every output even when every source answers 304", async () => {
    const before = current();
    const table = (version: string, output: string) =>
      join(dataDir, version, manifestOf(version.replace("datasets/", "")).outputs[output].compiled.file);
    // A table whose MMDB is the same is kept, unless it no longer has its CRC-32: this one is compiled anew.
    const damaged = table(before, "city-ipv4");
    const intact = readFileSync(damaged);
    const replace = (bytes: Uint8Array) => {
      writeFileSync(`${damaged}.new`, bytes); // a new file: the server maps the old one
      renameSync(`${damaged}.new`, damaged);
    };
    replace(intact.map((byte, i) => (i === intact.length - 1 ? byte ^ 1 : byte)));
    const run = await update("--force");
    const damagedInode = statSync(damaged).ino;
    replace(intact);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/reputation-index\s+\d+\s+\d+/);
    expect(current()).not.toBe(before);
    expect(manifestOf(current().replace("datasets/", "")).base).toBe(before.replace("datasets/", ""));
    expect(statSync(table(current(), "city-ipv6")).ino).toBe(statSync(table(before, "city-ipv6")).ino);
    expect(statSync(table(current(), "city-ipv4")).ino).not.toBe(damagedInode);
    expect(readFileSync(table(current(), "city-ipv4")).equals(intact)).toBe(true);
  });

  test("an HTML page in place of a list is refused, a broken feed keeps its data, and the others go ahead", async () => {
    publish("/disposable.conf", HTML_WALL);
    broken.add("/ipsum.txt");
    publish("/country.mmdb.gz", Bun.gzipSync(new TextEncoder().encode("not an mmdb".repeat(100))));
    publish("/vpn-ipv4.txt", `${fixture("x4bnet-vpn-ipv4.txt")}45.12.0.0/24\n`);
    const run = await update();
    broken.delete("/ipsum.txt");
    publish("/country.mmdb.gz", GOOD_COUNTRY);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/disposable\s+failed\s+refused: looks like an HTML page.*keeps its data of/);
    expect(run.stdout).toMatch(/ipsum\s+failed\s+HTTP 503/);
    expect(run.stdout).toMatch(/country\s+failed\s+refused: not a valid MaxMind DB/);
    expect(run.stdout).toMatch(/vpn-ranges\s+updated/);
    await waitFor(async () => (await ask("/v1/ip-reputation-check?ip=45.12.0.9")).reputation.kind.includes("vpn"));
    expect(await disposable("guerrillamail.com")).toBe(true);
    expect(await disposable("000email.com")).toBe(true);
    expect((await ask("/v1/ip-reputation-check?ip=77.90.185.20")).reputation.attack).toBe(10);
    expect((await ask("/v1/ip-reputation-check?ip=1.1.1.1")).country_code).toBe("AU");
    publish("/disposable.conf", fixture("mailchecker-list.txt"));
  });

  test("an MMDB download damaged inside its data section, metadata intact, is refused and the served one stays", async () => {
    const before = current();
    const damaged = Buffer.from(Bun.gunzipSync(GOOD_COUNTRY));
    const metadata = damaged.lastIndexOf(Buffer.from("\xab\xcd\xefMaxMind.com", "latin1"));
    // Random bytes over the last 1,400 bytes before the metadata: the records' part of the data section.
    let state = 11;
    for (let i = 0; i < 200; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      damaged[metadata - 1 - (state % 1400)] = state >>> 24;
    }
    publish("/country.mmdb.gz", Bun.gzipSync(damaged, FAST));
    const run = await update("--only", "country");
    publish("/country.mmdb.gz", GOOD_COUNTRY);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/country\s+failed\s+refused: damaged MaxMind DB file .*keeps its data of/);
    expect(current()).toBe(before);
    expect((await ask("/v1/ip-reputation-check?ip=1.1.1.1")).country_code).toBe("AU");
  });

  test("a source that shrank too much against its last download is refused unless forced", async () => {
    publish("/ipsum.txt", "# ipsum\n77.90.185.20\t10\n");
    const refused = await update("--only", "ipsum");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/ipsum\s+failed\s+refused: shrank from 40 to 1 entries/);
    publish("/ipsum.txt", fixture("ipsum.txt"));
  });

  test("a sources file without ipsum does not silently drop its addresses", async () => {
    const before = current();
    const shorter = join(dataDir, "without-ipsum.json");
    writeFileSync(shorter, sourcesWith(testSources.filter((s) => s.name !== "ipsum")));
    const refused = await update("--sources", shorter);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/ipsum\s+removed/);
    expect(refused.stderr).toMatch(
      /refused: reputation-index would shrink from \d+ to \d+ .*ipsum \(removed from the sources file, was 40 entries\)/,
    );
    expect(refused.stderr).toContain("the current data keeps serving");
    expect(current()).toBe(before);
    expect((await ask("/v1/ip-reputation-check?ip=77.90.185.20")).reputation.attack).toBe(10);

    const forced = await update("--sources", shorter, "--force");
    expect(forced.code).toBe(0);
    await waitFor(async () => (await ask("/v1/ip-reputation-check?ip=77.90.185.20")).reputation.attack === 0);
    // Sources no longer in the version are not listed.
    expect((await ask("/healthz")).sources.map((s: { name: string }) => s.name)).not.toContain("ipsum");
  });

  test("rollback steps back one version each time, and the server follows", async () => {
    const line = [current().replace("datasets/", "")];
    while (line.length < 3) line.push(manifestOf(line.at(-1)!).base);
    const list = await update("--list");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^\\*\\s+${line[0]}`, "m"));
    for (const step of [1, 2]) {
      const run = await update("--rollback");
      expect(run.code).toBe(0);
      if (step === 1) expect(run.stdout).toContain("Roll back again to step further.");
      expect(current()).toBe(`datasets/${line[step]}`);
      await waitFor(async () => (await servedVersion()) === line[step]);
    }
    // Before the forced removal, ipsum's addresses are back.
    expect((await ask("/v1/ip-reputation-check?ip=77.90.185.20")).reputation.attack).toBe(10);
  });

  test("every update is on the record of the server's database: installed, failed, refused, rolled back", async () => {
    const events = JSON.parse((await runCliAsync(["audit", "list", "--action", "update", "--json"], env)).stdout);
    const actions = events.map((e: { action: string }) => e.action);
    expect(actions.slice(0, 2)).toEqual(["update.rolled_back", "update.rolled_back"]);
    for (const action of ["update.installed", "update.failed"]) expect(actions).toContain(action);
    expect(events[0]).toMatchObject({
      channel: "cli",
      target: `dataset version ${current().replace("datasets/", "")}`,
      change: { version: { after: current().replace("datasets/", "") } },
    });
    const refused = events.find((e: { detail: string | null }) => e.detail?.startsWith("refused: reputation-index"));
    expect(refused).toMatchObject({ action: "update.failed", outcome: "failed" });
    expect(refused.detail).toContain("the data in use keeps serving");
  });

  test("only the versions along the current one's history are kept, as many as --keep-versions says", async () => {
    publish("/vpn-ipv4.txt", `${fixture("x4bnet-vpn-ipv4.txt")}45.12.1.0/24\n`);
    const run = await update("--keep-versions", "2");
    expect(run.code).toBe(0);
    // The two versions rolled back from before are among those removed.
    expect(run.stdout).toMatch(/ Removed [2-9] versions outside the 2 kept along its history/);
    const kept = readdirSync(join(dataDir, "datasets")).filter((n) => !n.startsWith("."));
    expect(kept).toHaveLength(2);
    expect(kept).toContain(current().replace("datasets/", ""));
    expect(kept).toContain(manifestOf(current().replace("datasets/", "")).base);
    const oldest = await update("--rollback");
    expect(oldest.code).toBe(0);
    expect(oldest.stdout).toContain("It is the oldest version kept.");
    expect(oldest.stdout).not.toContain("Roll back again");
    const beyond = await update("--rollback");
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain("is the oldest dataset version kept");
  });

  test("a second update waits its turn: it is refused while another runs", async () => {
    let release!: () => void;
    slow.set("/ipsum.txt", new Promise<void>((resolve) => (release = resolve)));
    publish("/ipsum.txt", `${fixture("ipsum.txt")}8.8.4.4\t1\n`);
    const first = update("--only", "ipsum");
    const deadline = Date.now() + scaled(10_000);
    while (!hits.some((h) => h.path === "/ipsum.txt") && Date.now() < deadline) await Bun.sleep(20);
    hits.length = 0;
    await Bun.sleep(scaled(300));
    const second = await update();
    release();
    slow.clear();
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("another update");
    expect((await first).code).toBe(0);
  });

  test("a server under steady load answers every request during an update", async () => {
    // A verified Googlebot address and a public resolver planted on 9 lists.
    publish("/ipsum.txt", `${fixture("ipsum.txt")}8.8.4.4\t2\n81.2.69.142\t30\n66.249.66.1\t9\n1.1.1.1\t9\n`);
    let stop = false;
    const statuses: number[] = [];
    const load = (async () => {
      while (!stop) {
        const batch = await Promise.all(
          [
            "/v1/ip-reputation-check?ip=81.2.69.142",
            "/v1/check?email=a@gmail.com",
            "/v1/ip-reputation-check?ip=2001:4860:4860::8888",
          ].map((q) =>
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

  test("a verified crawler or a public resolver on 9 lists is never risky", async () => {
    const crawler = await ask("/v1/ip-reputation-check?ip=66.249.66.1&explain=1");
    expect(crawler.reputation).toMatchObject({ risky: false, reputation: "suspicious", attack: 9 });
    expect(crawler.reputation.kind).toContain("crawler");
    expect(crawler.reputation.reasons.rule).toEqual({
      id: "benign-cap",
      level: "suspicious",
      reports: 9,
      capped: { from: "bad", by: "verified-crawler" },
    });
    expect((await ask("/v1/ip-reputation-check?ip=1.1.1.1")).reputation).toMatchObject({
      risky: false,
      reputation: "suspicious",
    });
  });

  test("?explain=1 names each list, the reports it adds, and since when this appliance has seen it", async () => {
    const explained = async () => (await ask("/v1/ip-reputation-check?ip=81.2.69.142&explain=1")).reputation;
    const ipsumOf = (reputation: Record<string, any>) =>
      reputation.reasons.contributions.find((c: { source: string }) => c.source === "ipsum");
    const before = await explained();
    expect(before.reasons.rule).toEqual({ id: "reports>=bad", level: "bad", reports: 30, threshold: 6 });
    expect(ipsumOf(before)).toMatchObject({ category: "attack", count: 30, weight: 1, counted: 30 });
    expect(Date.parse(ipsumOf(before).first_seen)).toBeLessThanOrEqual(Date.parse(ipsumOf(before).last_seen));
    expect(before.reasons.kinds).toContainEqual({ kind: "vpn", from: "AS64500 in vpn-asns" });

    // A later version with another count: the listing keeps its first sighting, its last one moves on.
    publish("/ipsum.txt", `${fixture("ipsum.txt")}8.8.4.4\t2\n81.2.69.142\t31\n66.249.66.1\t9\n1.1.1.1\t9\n`);
    expect((await update("--only", "ipsum")).code).toBe(0);
    await waitFor(async () => (await ask("/v1/ip-reputation-check?ip=81.2.69.142")).reputation.attack === 31);
    const after = ipsumOf(await explained());
    expect(after.count).toBe(31);
    expect(after.first_seen).toBe(ipsumOf(before).first_seen);
    expect(Date.parse(after.last_seen)).toBeGreaterThan(Date.parse(ipsumOf(before).last_seen));
  });

  test("sources.json errors name the entry and the field", async () => {
    const bad = join(dataDir, "bad-sources.json");
    writeFileSync(
      bad,
      JSON.stringify({
        sources: [
          { name: "Bad Name", url: "ftp://x", format: "csv", feeds: "x" },
          { name: "ok", url: "npm:x/y", format: "mmdb", feeds: "city", licence: "l", supersedes: ["ghost"] },
        ],
      }),
    );
    const run = await update("--sources", bad);
    expect(run.code).toBe(2);
    for (const field of [
      "sources[0].name",
      "sources[0].url",
      "sources[0].format",
      "sources[0].licence",
      'source "ok": supersedes: no source is named "ghost"',
    ])
      expect(run.stderr).toContain(field);
    expect(readlinkSync(join(dataDir, "current"))).toStartWith("datasets/");
  });
});
