import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { makeDataDir } from "../support/processes.ts";

// Loading the bundled data takes seconds on a loaded machine.
setDefaultTimeout(30_000);

describe("a snapshot is one version, whatever an update does meanwhile", () => {
  test("every file of the version is read from the folder `current` named when the load began", async () => {
    const dir = makeDataDir();
    const folder = readlinkSync(join(dir, "current"));
    const { snapshot } = await loadSnapshot(dir, DEFAULT_THRESHOLDS);
    const versionFiles = snapshot.datasets.filter((d) => !d.name.startsWith("curated/") && !d.name.startsWith("operator"));
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
