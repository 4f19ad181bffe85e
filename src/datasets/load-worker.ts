/**
 * The Worker a load runs in (`prepareInWorker`): reads, checks and compiles what a
 * snapshot needs, and hands it back with its buffers transferred, so the serving
 * thread never waits on that work.
 */
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import { buffersOf } from "./transfer-buffers.ts";
import { releaseVersionPages } from "./version-pages.ts";

declare const self: Worker;

export interface LoadRequest {
  readonly dataDir: string;
  readonly root: string | undefined;
  /** The email lists' evidence rule, or null for the IP datasets alone. */
  readonly emailRule: EvidenceRule | null;
  /** The email lists alone (`emailRule` is then set): the IP datasets are prepared elsewhere. */
  readonly emailOnly?: boolean;
}

self.onmessage = async (event: MessageEvent<LoadRequest>) => {
  const { dataDir, root, emailRule, emailOnly } = event.data;
  try {
    // Imported as asked: the email lists alone need none of the IP code.
    const prepared =
      emailOnly && emailRule !== null
        ? await (await import("./prepare-email.ts")).prepareEmailPart(dataDir, root, emailRule)
        : await (await import("./prepare-datasets.ts")).prepareDatasets(dataDir, root, emailRule);
    // The checks read whole files (a checksum, the ranges' order): their pages go until a request reads them.
    if (root !== undefined) await releaseVersionPages(root);
    self.postMessage({ prepared }, buffersOf(prepared));
  } catch (err) {
    const error =
      err instanceof DatasetError
        ? { file: err.file, problem: err.problem, fix: err.fix }
        : { message: (err as Error).message ?? String(err) };
    self.postMessage({ error });
  }
};
