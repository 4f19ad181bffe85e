import { join } from "node:path";
import { dataFiles } from "../datasets/data-layout.ts";
import type { Snapshot } from "../datasets/snapshot.ts";
import { currentVersion } from "../datasets/versions.ts";
import { releaseVersionPages } from "../datasets/version-pages.ts";

export interface DatasetReloadDeps {
  readonly dataDir: string;
  /** The version `current` names now, loaded off to the side. */
  readonly load: () => Promise<Snapshot>;
  /** The snapshot serving now, and what makes another one serve. */
  readonly serving: () => Snapshot;
  readonly serve: (next: Snapshot) => void;
  readonly log: { info(line: string): void; error(line: string): void };
}

export interface DatasetReloads {
  /** Loads the version `current` names and swaps it in, one load at a time; on failure the old one keeps serving. */
  reload(reason: string): Promise<void>;
  /** Whether `current` moved since the last load. */
  changed(): boolean;
  /**
   * After `update` made `version` current: loads it unless it is loaded already, or being loaded.
   * The version watcher may notice the new link before the update's process has exited.
   */
  installed(version: string, reason: string): Promise<void>;
}

export function datasetReloads({ dataDir, load, serving, serve, log }: DatasetReloadDeps): DatasetReloads {
  let loadedVersion = currentVersion(dataDir);
  let reloading: Promise<void> | null = null;
  const reload = (reason: string): Promise<void> =>
    (reloading ??= (async () => {
      const version = currentVersion(dataDir);
      try {
        const next = await load();
        const replaced = serving().version;
        serve(next);
        loadedVersion = next.version || version;
        log.info(`datasets: loaded version ${next.version || version} (${reason})`);
        if (replaced !== "" && replaced !== next.version)
          await releaseVersionPages(join(dataFiles(dataDir).versions, replaced));
      } catch (err) {
        loadedVersion = version; // not retried until the version changes again
        log.error(`datasets: reload failed, still serving ${serving().version}: ${(err as Error).message}`);
      } finally {
        reloading = null;
      }
    })());
  return {
    reload,
    changed: () => currentVersion(dataDir) !== loadedVersion,
    installed: async (version, reason) => {
      if (reloading !== null) await reloading;
      if (loadedVersion !== version) await reload(reason);
    },
  };
}
