import { RUNNING_COMPILED } from "../runtime/compiled.ts";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import type { LoadRequest } from "./load-worker.ts";
import type { PreparedDatasets } from "./prepare-datasets.ts";

/** Where build.ts's second entry point lands inside the executable (beside the CLI, under the sources' common folder). */
const COMPILED_WORKER = "/$bunfs/root/datasets/load-worker.js";

type LoadReply =
  | { prepared: PreparedDatasets }
  | { error: { file: string; problem: string; fix: string } | { message: string } };

/**
 * Runs `prepareDatasets` in a Worker of its own and stops the Worker when it has
 * answered: reading, checking and compiling never hold up the thread that serves.
 */
export function prepareInWorker(
  dataDir: string,
  root: string | undefined,
  emailRule: EvidenceRule | null,
): Promise<PreparedDatasets> {
  const worker = new Worker(RUNNING_COMPILED ? COMPILED_WORKER : new URL("./load-worker.ts", import.meta.url).href);
  return new Promise<PreparedDatasets>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<LoadReply>) => {
      const reply = event.data;
      if ("prepared" in reply) resolve(reply.prepared);
      else if ("file" in reply.error) reject(new DatasetError(reply.error.file, reply.error.problem, reply.error.fix));
      else reject(new Error(reply.error.message));
    };
    worker.onerror = (event) => reject(new Error(`the dataset loader stopped: ${event.message}`));
    worker.postMessage({ dataDir, root, emailRule } satisfies LoadRequest);
  }).finally(() => worker.terminate());
}
