import { join } from "node:path";
import { dataFiles } from "./data-layout.ts";
import { prepareEmailInWorker, prepareInWorker } from "./load-in-worker.ts";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import type { PreparedDatasets } from "./prepare-datasets.ts";
import type { PreparedEmail } from "./prepared-email.ts";
import { readServedEmail } from "./served-email-file.ts";
import { currentVersion } from "./versions.ts";

/**
 * A load under way in its Worker, and the version folder it reads (undefined: a data
 * directory without versions). Its datasets are handed over once (`take`) and not kept:
 * whatever still holds the load (the entry point keeps `serve`'s first one for the life of
 * the process) holds no version's tables, so a replaced version is unmapped once the
 * collector frees its snapshot.
 */
export class StartedLoad {
  #prepared: Promise<PreparedDatasets> | null;

  constructor(
    readonly root: string | undefined,
    prepared: Promise<PreparedDatasets>,
  ) {
    this.#prepared = prepared;
  }

  /** The load's result; a second call throws. */
  take(): Promise<PreparedDatasets> {
    const prepared = this.#prepared;
    if (prepared === null) throw new Error("a started dataset load is taken once");
    this.#prepared = null;
    return prepared;
  }
}

/**
 * Starts reading the version at `givenRoot`, or the one `current` names now, in a Worker
 * (`loadSnapshot` finishes it). Light to import: `serve` calls it before the rest of the
 * program is loaded, so the two run at once.
 */
export function startLoad(dataDir: string, givenRoot: string | undefined, emailRule: EvidenceRule | null): StartedLoad {
  const root = givenRoot ?? currentRoot(dataDir);
  return new StartedLoad(root, prepareInWorker(dataDir, root, emailRule));
}

/**
 * A first start's load, before anything is served: the IP datasets on this thread, and the
 * email lists read from the version's served lists where they were made from the same inputs,
 * else made in a Worker meanwhile.
 */
export function startFirstLoad(dataDir: string, emailRule: EvidenceRule): StartedLoad {
  const root = currentRoot(dataDir);
  const email = servedOrInWorker(dataDir, root, emailRule);
  const ip = import("./prepare-datasets.ts").then((code) => code.prepareIpPart(dataDir, root));
  // Both are awaited together; the one that fails second is no unhandled rejection.
  email.catch(() => {});
  ip.catch(() => {});
  const prepared = Promise.all([ip, email]).then(([part, lists]) => ({ ...part, email: lists }));
  // `serve` takes it and reports a failure; if `serve` stops before that, the failure is no second error.
  prepared.catch(() => {});
  return new StartedLoad(root, prepared);
}

function servedOrInWorker(dataDir: string, root: string | undefined, rule: EvidenceRule): Promise<PreparedEmail> {
  try {
    const served = root === undefined ? null : readServedEmail(dataDir, root, rule).prepared;
    if (served) return Promise.resolve(served);
  } catch (err) {
    return Promise.reject(err);
  }
  return prepareEmailInWorker(dataDir, root, rule);
}

/** The folder of the version `current` names now; undefined for a data directory without versions. */
function currentRoot(dataDir: string): string | undefined {
  const version = currentVersion(dataDir);
  return version === null ? undefined : join(dataFiles(dataDir).versions, version);
}
