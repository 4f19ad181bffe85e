import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { refusedRedirect } from "../../src/datasets/update/redirect-target.ts";
import { BUNDLED_SOURCES, CLI, makeDataDir, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

const PEAK_RSS = join(import.meta.dir, "..", "support", "peak-rss.ts");
const IPSUM = readFileSync(join(import.meta.dir, "..", "fixtures", "feeds", "ipsum.txt"), "utf8");
const SECRET = "internal-secret-7f3a9c first line of a file only this host serves";
/** 128 MiB of zeros as eight concatenated 16 MiB gzip members (~130 KB): gunzip reads them all. */
const GZIP_BOMB = Buffer.concat(Array(8).fill(gzipSync(new Uint8Array(16 << 20))));

/** An address list's ceiling (MAX_SOURCE_BYTES), written out: docs/datasets.md promises it to operators. */
const LIST_CEILING = 8 * 1_048_576;
const requested: string[] = [];
let feeds: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(() => {
  feeds = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      requested.push(path);
      if (path === "/ipsum.txt") return new Response(IPSUM);
      if (path === "/bomb.txt.gz") return new Response(GZIP_BOMB);
      // A publisher (or whoever took its domain over) steering the appliance at what only it can reach.
      if (path === "/moved.txt")
        return new Response(null, { status: 302, headers: { location: `${base}/secret.txt` } });
      if (path === "/moved-to-metadata.txt")
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
      if (path === "/moved-to-file.txt")
        return new Response(null, { status: 302, headers: { location: "file:///etc/passwd" } });
      if (path === "/secret.txt" || path === "/wrong-file.txt") return new Response(`${SECRET}\n`);
      return new Response("missing", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${feeds.port}`;
});
afterAll(() => feeds?.stop(true));

const list = (name: string, url: string) => ({ name, url, format: "address-list", feeds: "attack", licence: "test" });

/** `riskcheck update --json` on a fresh data directory with these sources added; its report and peak RSS. */
async function update(extra: object[]) {
  const dir = makeDataDir();
  writeFileSync(join(dir, "sources.json"), JSON.stringify({ sources: [...BUNDLED_SOURCES, ...extra] }));
  const peakFile = join(dir, "peak-rss");
  const child = Bun.spawn(
    [process.execPath, PEAK_RSS, peakFile, process.execPath, CLI, "update", "--json", "--data-dir", dir],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const timeout = setTimeout(() => child.kill("SIGTERM"), scaled(50_000));
  try {
    const [stdout, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    const report = JSON.parse(stdout) as { outcomes: { name: string; outcome: string; detail: string }[] };
    return { dir, report, stderr, peakRssMb: Number(readFileSync(peakFile, "utf8")) / 1_048_576 };
  } finally {
    clearTimeout(timeout);
  }
}
const outcomeOf = (report: { outcomes: { name: string; outcome: string; detail: string }[] }, name: string) =>
  report.outcomes.find((o) => o.name === name)!;

describe("update holds no source past its format's ceiling", () => {
  test("a gzip bomb (130 KB unpacking to 128 MiB) is refused, naming the source and the ceiling, with a small peak RSS", async () => {
    const { report, peakRssMb } = await update([list("bomb", `${base}/bomb.txt.gz`)]);
    const bomb = outcomeOf(report, "bomb");
    expect(bomb.outcome).toBe("failed");
    expect(bomb.detail).toContain(`unpacks to more than the 8 MB a source of this format may have`);
    expect(peakRssMb).toBeLessThan(300);
  });

  test("a file:// source larger than the ceiling is refused before it is read", async () => {
    const dir = makeDataDir();
    const big = join(dir, "big.txt");
    // A sparse file: nothing is written to disk.
    const fd = openSync(big, "w");
    closeSync(fd);
    Bun.spawnSync(["truncate", "-s", String(LIST_CEILING + 1), big]);
    const { report, peakRssMb } = await update([list("big", `file://${big}`)]);
    const outcome = outcomeOf(report, "big");
    expect(outcome.outcome).toBe("failed");
    expect(outcome.detail).toContain(`has ${LIST_CEILING + 1} bytes, more than the 8 MB`);
    expect(peakRssMb).toBeLessThan(300);
  });
});

test("IP lists whose entries together exceed what one update holds within 1 GB are refused before the index is built", async () => {
  const dir = makeDataDir();
  // Two lists of 620,000 single addresses in 7.7 MB each: under the size ceiling, together over the entry budget (1,200,000).
  const files = [0, 1].map((part) => {
    const lines: string[] = [];
    for (let i = part * 620_000; i < (part + 1) * 620_000; i++)
      lines.push(`${11 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}.1`);
    const file = join(dir, `dense-${part + 1}.txt`);
    writeFileSync(file, lines.join("\n"));
    return file;
  });
  const { report, peakRssMb } = await update(files.map((file, part) => list(`dense-${part + 1}`, `file://${file}`)));
  expect(outcomeOf(report, "dense-1").outcome).toBe("updated");
  const dense = outcomeOf(report, "dense-2");
  expect(dense.outcome).toBe("failed");
  expect(dense.detail).toContain(
    "its 620000 entries would bring the IP lists to 1240000, more than the 1200000 one update holds",
  );
  // Composing 1,240,000 entries would peak near 800 MB; the refused list is dropped before the index is built.
  expect(peakRssMb).toBeLessThan(700);
});

describe("a feed's redirect reaches no internal address, and nothing fetched is echoed", () => {
  test("redirects to loopback, link-local (metadata) and non-http URLs are refused; the secret is never requested", async () => {
    const seen = requested.length;
    const { report } = await update([
      list("moved", `${base}/moved.txt`),
      list("metadata", `${base}/moved-to-metadata.txt`),
      list("to-file", `${base}/moved-to-file.txt`),
    ]);
    expect(outcomeOf(report, "moved").detail).toContain(
      `redirect refused: to 127.0.0.1:${feeds.port}, which is not a public address`,
    );
    expect(outcomeOf(report, "metadata").detail).toContain(
      "redirect refused: to 169.254.169.254, which is not a public address",
    );
    expect(outcomeOf(report, "to-file").detail).toContain("redirect refused: to a file: URL");
    expect(requested.slice(seen)).not.toContain("/secret.txt");
  });

  test("in serve: /healthz's warnings (the dashboard shows the same list) name the refused source, never the content it served", async () => {
    const dir = makeDataDir();
    writeFileSync(
      join(dir, "sources.json"),
      JSON.stringify({
        sources: [
          ...BUNDLED_SOURCES,
          list("ipsum", `${base}/ipsum.txt`),
          list("moved", `${base}/moved.txt`),
          list("wrong", `${base}/wrong-file.txt`),
        ],
      }),
    );
    const server = await startServe([], {
      RISKCHECK_DATA_DIR: dir,
      RISKCHECK_DB: join(dir, "r.sqlite"),
      RISKCHECK_UPDATE_EVERY: "1s",
    });
    try {
      await server.waitForOutput(/refresh: /, 45_000);
      const health = await (await fetch(`${server.url}/healthz`)).text();
      // Grouped by the kind of problem; a refusal keeps its particular reason.
      expect(health).toMatch(
        /the last refresh could not fetch 1 source \(moved; it has no data yet\): redirect refused: to 127\.0\.0\.1:\d+, which is not a public address/,
      );
      expect(health).toContain(
        "the last refresh could not fetch 1 source (wrong; it has no data yet): the download was refused: 1 of 1 entries are not IP addresses or CIDRs (the first at line 1)",
      );
      expect(health).not.toContain("internal-secret");
    } finally {
      await server.stop();
    }
  });

  test("names resolving to internal addresses are refused like literal ones; public ones pass", async () => {
    expect(await refusedRedirect(new URL("http://localhost/x"))).toContain("which is not a public address");
    expect(await refusedRedirect(new URL("http://[::1]/x"))).toContain("which is not a public address");
    expect(await refusedRedirect(new URL("http://2130706433/x"))).toContain("to 127.0.0.1");
    expect(await refusedRedirect(new URL("http://10.1.2.3/x"))).toContain("not a public address");
    expect(await refusedRedirect(new URL("http://100.100.100.200/x"))).toContain("not a public address");
    expect(await refusedRedirect(new URL("https://93.184.215.14/feed.txt"))).toBeNull();
  });
});
