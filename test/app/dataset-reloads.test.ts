import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { datasetReloads } from "../../src/app/dataset-reloads.ts";
import type { Snapshot } from "../../src/datasets/snapshot.ts";
import { currentVersion } from "../../src/datasets/versions.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A data directory whose `current` names version A of two, A and B (empty folders: the loads here are stand-ins). */
function dataDir(): { dir: string; makeCurrent(version: string): void } {
  const dir = mkdtempSync(join(tmpdir(), "riskcheck-reloads-"));
  dirs.push(dir);
  for (const version of ["A", "B"]) mkdirSync(join(dir, "datasets", version), { recursive: true });
  const makeCurrent = (version: string) => {
    symlinkSync(join("datasets", version), join(dir, "current.new"));
    renameSync(join(dir, "current.new"), join(dir, "current"));
  };
  makeCurrent("A");
  return { dir, makeCurrent };
}

/** The reloads over a stand-in load that counts its calls and, while `gate` is set, waits for it. */
function reloadsOver(dir: string) {
  let serving = { version: "A" } as Snapshot;
  const loads: string[] = [];
  const lines: string[] = [];
  let gate: Promise<void> | null = null;
  const reloads = datasetReloads({
    dataDir: dir,
    load: async () => {
      const version = currentVersion(dir)!;
      loads.push(version);
      if (gate) await gate;
      return { version } as Snapshot;
    },
    serving: () => serving,
    serve: (next) => {
      serving = next;
    },
    log: { info: (line) => lines.push(line), error: (line) => lines.push(line) },
  });
  return {
    reloads,
    loads,
    lines,
    serving: () => serving.version,
    hold: () => {
      let open = () => {};
      gate = new Promise((resolve) => (open = resolve));
      return () => {
        gate = null;
        open();
      };
    },
  };
}

test("a version the watcher loaded before the update's process exited is not loaded again by the refresh", async () => {
  const { dir, makeCurrent } = dataDir();
  const r = reloadsOver(dir);
  makeCurrent("B");
  // The version watcher's tick: `current` moved.
  expect(r.reloads.changed()).toBe(true);
  await r.reloads.reload("new dataset version");
  // Then the update's process exits, having installed B.
  await r.reloads.installed("B", "refresh");
  expect(r.loads).toEqual(["B"]);
  expect(r.lines).toEqual(["datasets: loaded version B (new dataset version)"]);
  expect(r.serving()).toBe("B");
});

test("the refresh waits for the watcher's load of its version under way, and loads nothing itself", async () => {
  const { dir, makeCurrent } = dataDir();
  const r = reloadsOver(dir);
  makeCurrent("B");
  const open = r.hold();
  const watcher = r.reloads.reload("new dataset version");
  let refreshed = false;
  const refresh = r.reloads.installed("B", "refresh").then(() => {
    refreshed = true;
  });
  await Bun.sleep(20);
  // Its success is recorded only once the new version serves.
  expect(refreshed).toBe(false);
  open();
  await Promise.all([watcher, refresh]);
  expect(r.serving()).toBe("B");
  expect(r.loads).toEqual(["B"]);
});

test("a version the watcher has not seen yet is loaded by the refresh, once", async () => {
  const { dir, makeCurrent } = dataDir();
  const r = reloadsOver(dir);
  makeCurrent("B");
  await r.reloads.installed("B", "refresh");
  expect(r.loads).toEqual(["B"]);
  expect(r.serving()).toBe("B");
  expect(r.reloads.changed()).toBe(false);
});
