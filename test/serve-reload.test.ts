import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { linkTree } from "../src/datasets/staged-files.ts";
import { eventually } from "./support/deadline.ts";
import { type ServeProcess, makeDataDir, startServe } from "./support/processes.ts";
import { scaled } from "./support/slowness.ts";

// Three loads of the bundled data in a real process, and the collector's own time to free each replaced version.
setDefaultTimeout(scaled(90_000));

// The first replaces the version `serve` started with, the second one a reload loaded.
const RELOADS = 2;
let dataDir: string;
let server: ServeProcess;
let versions: [string, string];

beforeAll(async () => {
  dataDir = makeDataDir();
  const first = readlinkSync(join(dataDir, "current")).replace("datasets/", "");
  // A second version: the same files (hard links) in a folder of its own, its manifest naming it.
  const second = `${first}-again`;
  linkTree(join(dataDir, "datasets", first), join(dataDir, "datasets", second));
  const manifestFile = join(dataDir, "datasets", second, "manifest.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  rmSync(manifestFile);
  writeFileSync(manifestFile, JSON.stringify({ ...manifest, version: second }));
  versions = [first, second];
  server = await startServe([], { RISKCHECK_DATA_DIR: dataDir, RISKCHECK_DB: join(dataDir, "riskcheck.sqlite") });
});

afterAll(async () => {
  if (server.proc.exitCode === null) await server.stop();
});

/** Points `current` at a version in one rename, as `update` does. */
function makeCurrent(version: string): void {
  const temporary = join(dataDir, "current.tmp");
  symlinkSync(join("datasets", version), temporary);
  renameSync(temporary, join(dataDir, "current"));
}

/** The version folders whose compiled tables the server maps now, with how many tables of each. */
function mappedTables(): Map<string, number> {
  const versionsDir = `${realpathSync(join(dataDir, "datasets"))}/`;
  const tables = new Map<string, number>();
  for (const line of readFileSync(`/proc/${server.proc.pid}/maps`, "utf8").split("\n")) {
    const at = line.indexOf(versionsDir);
    if (at < 0 || !line.endsWith(".table")) continue;
    const version = line.slice(at + versionsDir.length).split("/")[0]!;
    tables.set(version, (tables.get(version) ?? 0) + 1);
  }
  return tables;
}

test("a server reloaded again and again maps the tables of the version it serves, and no replaced one", async () => {
  expect(mappedTables()).toEqual(new Map([[versions[0], 3]]));
  for (let reload = 1; reload <= RELOADS; reload++) {
    const version = versions[reload % 2]!;
    makeCurrent(version);
    const loaded = `datasets: loaded version ${version} (new dataset version)`;
    await eventually(
      `reload ${reload} to ${version}`,
      30_000,
      () => server.output().split(loaded).length - 1 === Math.ceil(reload / 2),
    );
    const health = (await (await fetch(`${server.url}/healthz`)).json()) as { dataset_version: string };
    expect(health.dataset_version).toBe(version);
    // Nothing forces a collection (a full one stalls the answers 100–200 ms): an idle server's own
    // collections freed the replaced version 1–12 s after the swap.
    await eventually(
      `the version before reload ${reload} unmapped`,
      30_000,
      () => mappedTables().size === 1 && mappedTables().get(version) === 3,
    );
  }
});
