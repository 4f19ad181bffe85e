import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";
import { prepareInWorker } from "../../src/datasets/load-in-worker.ts";
import { StartedLoad } from "../../src/datasets/start-load.ts";
import { DEFAULT_EVIDENCE_RULE } from "../../src/email/evidence-rule.ts";
import { parseIpAddress } from "../../src/ip/address/parse.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { eventually } from "../support/deadline.ts";
import { makeDataDir } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// Loading the bundled data takes seconds on a loaded machine.
setDefaultTimeout(scaled(60_000));

describe("a snapshot is one version, whatever an update does meanwhile", () => {
  test("every file of the version is read from the folder `current` named when the load began", async () => {
    const dir = makeDataDir();
    const folder = readlinkSync(join(dir, "current"));
    const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    const versionFiles = snapshot.datasets.filter(
      (d) => !d.name.startsWith("curated/") && !d.name.startsWith("operator"),
    );
    expect(versionFiles.length).toBeGreaterThan(5);
    for (const dataset of versionFiles) expect(dataset.file).toStartWith(`${folder}/`);
    expect(snapshot.version).toBe(readlinkSync(join(dir, "current")).replace("datasets/", ""));
  });
});

test("the files a snapshot names are paths inside the data directory: /healthz, which needs no key, shows them", async () => {
  const dir = makeDataDir();
  const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
  for (const dataset of snapshot.datasets) {
    expect(dataset.file).not.toContain(dir);
    expect(dataset.file.startsWith("/")).toBe(false);
  }
  expect(snapshot.datasets.find((d) => d.name === "operator-allowlist")?.file).toBe("email/allowlist.txt");
});

test("a snapshot serves its tables, indexes and email lists from mappings of the version's files, released with it", async () => {
  const dir = makeDataDir();
  const folder = realpathSync(join(dir, readlinkSync(join(dir, "current"))));
  const mapped = () =>
    readFileSync("/proc/self/maps", "utf8")
      .split("\n")
      .filter((line) => line.includes(folder))
      .map((line) => line.slice(line.indexOf(folder) + folder.length + 1));
  // Loaded and dropped in a call of its own, so that no slot of this frame still points at it.
  const loadAndDrop = async () => {
    const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    expect(snapshot.ip.geo.lookup(parseIpAddress("81.2.69.142")!).geo.country_code).toBe("GB");
    return new Set(mapped());
  };
  expect(await loadAndDrop()).toEqual(
    new Set([
      "geo/city-ipv4.table",
      "geo/city-ipv6.table",
      "geo/country.table",
      "ip/asn.idx",
      "ip/reputation.idx",
      "email/evidence.pack",
    ]),
  );
  // The collections that find the snapshot unreferenced unmap its files; on a busy machine the
  // load's Worker, which mapped them too, can take seconds to be torn down.
  await eventually(
    "the dropped snapshot's files unmapped",
    5_000,
    () => {
      Bun.gc(true);
      return mapped().length === 0;
    },
    50,
  ).catch(() => undefined);
  expect(mapped()).toEqual([]);
});

test("the serving thread opens a version the Worker handed over a piece a turn of the event loop, an index a turn", async () => {
  const dir = makeDataDir();
  const root = join(dir, readlinkSync(join(dir, "current")));
  const prepared = await prepareInWorker(dir, root, DEFAULT_EVIDENCE_RULE);
  // The ASN, reputation and curated indexes, one per IP list's evidence, the email lists, the tables.
  const pieces = 3 + prepared.ip.evidence.length + 2;
  let turns = 0;
  let done = false;
  const count = () => {
    if (done) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  let snapshot: Snapshot;
  try {
    ({ snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS, {
      started: new StartedLoad(root, Promise.resolve(prepared)),
    }));
  } finally {
    done = true;
  }
  expect(snapshot.ip.asn.entryOf(parseIpAddress("8.8.8.8")!)).toBeGreaterThanOrEqual(0);
  expect(turns).toBeGreaterThanOrEqual(pieces);
});

describe("a version written before `update` compiled tables", () => {
  test("still loads: its MMDBs are compiled once, off the serving thread, and read from then on", async () => {
    const dir = makeDataDir();
    const folder = join(dir, readlinkSync(join(dir, "current")));
    // The manifest and MMDBs as an older riskcheck wrote them: no tables, no `compiled` records.
    const manifestFile = join(folder, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      outputs: Record<string, { compiled?: unknown }>;
    };
    for (const output of Object.values(manifest.outputs)) delete output.compiled;
    rmSync(manifestFile);
    writeFileSync(manifestFile, JSON.stringify(manifest));
    for (const name of ["city-ipv4", "city-ipv6", "country"]) rmSync(join(folder, "geo", `${name}.table`));

    const first = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    expect(first.notes.filter((n) => n.startsWith("compiled geo/")).length).toBe(3);
    const recorded = JSON.parse(readFileSync(manifestFile, "utf8")) as {
      outputs: Record<string, { compiled?: { file: string; sha256: string } }>;
    };
    for (const name of ["city-ipv4", "city-ipv6", "country"]) {
      const table = recorded.outputs[name].compiled!;
      expect(table.file).toBe(`geo/${name}.table`);
      expect(new Bun.CryptoHasher("sha256").update(readFileSync(join(folder, table.file))).digest("hex")).toBe(
        table.sha256,
      );
    }

    const second = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    expect(second.notes.filter((n) => n.includes("compiled"))).toEqual([]);
    for (const address of [
      "81.2.69.142",
      "8.8.8.8",
      "1.1.1.1",
      "2a03:2880:f12f:83:face:b00c:0:25de",
      "196.201.92.119",
    ]) {
      const [a, b] = [first, second].map((load) => load.snapshot.ip.geo.lookup(parseIpAddress(address)!));
      expect([b.headJson, b.tailJson]).toEqual([a.headJson, a.tailJson]);
      expect(a.headJson).toContain('"country":"');
    }
  });
});

describe("the whole-file checks run once per file, not at every load", () => {
  /** Bytes this process has read through read(2) and the like, the page cache's included. */
  const bytesRead = () => Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))![1]);

  test("a load after the first reads none of the mapped files' bytes: their checks passed on these very files", async () => {
    const dir = makeDataDir();
    const before = bytesRead();
    await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    const first = bytesRead() - before;
    await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    const second = bytesRead() - before - first;
    // The bundled tables, indexes and email pack are ~95 MB; the text files a load reads, well under 5 MB.
    expect(first).toBeGreaterThan(70_000_000);
    expect(second).toBeLessThan(5_000_000);
  });

  test("a table written in place after its check passed is checked whole again, and refused", async () => {
    const dir = makeDataDir();
    const table = join(dir, readlinkSync(join(dir, "current")), "geo", "country.table");
    // A copy of its own (the bundled one is hard-linked), then checked by a load.
    const bytes = readFileSync(table);
    rmSync(table);
    writeFileSync(table, bytes);
    await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    bytes[Math.floor(bytes.length / 2)] ^= 0x01;
    writeFileSync(table, bytes);
    await expect(loadSnapshot(dir, DEFAULT_THRESHOLDS)).rejects.toThrow(
      "damaged compiled table (its CRC-32 is not the one the manifest records)",
    );
  });
});
