import { RUNNING_COMPILED } from "../runtime/compiled.ts";
import type { EvidenceRule } from "../email/evidence-rule.ts";
import { DatasetError } from "../ip/dataset-error.ts";
import type { LoadRequest } from "./load-worker.ts";
import type { PreparedDatasets } from "./prepare-datasets.ts";
import type { PreparedEmail } from "./prepared-email.ts";

/** Where build.ts's second entry point lands inside the executable (beside the CLI, under the sources' common folder). */
const COMPILED_WORKER = "/$bunfs/root/datasets/load-worker.js";

type LoadReply<T> = { prepared: T } | { error: { file: string; problem: string; fix: string } | { message: string } };

/**
 * Runs `prepareDatasets` (or, `emailOnly`, its email lists alone) in a Worker of its own
 * and stops the Worker when it has answered: reading, checking and compiling never hold up
 * the thread that serves.
 */
export function prepareInWorker(
  dataDir: string,
  root: string | undefined,
  emailRule: EvidenceRule | null,
): Promise<PreparedDatasets> {
  return inWorker<PreparedDatasets>({ dataDir, root, emailRule });
}

/** The email lists alone, in a Worker: a first start prepares the IP datasets on its own thread meanwhile. */
export function prepareEmailInWorker(
  dataDir: string,
  root: string | undefined,
  rule: EvidenceRule,
): Promise<PreparedEmail> {
  return inWorker<PreparedEmail>({ dataDir, root, emailRule: rule, emailOnly: true });
}

function inWorker<T>(request: LoadRequest): Promise<T> {
  const worker = new Worker(RUNNING_COMPILED ? COMPILED_WORKER : new URL("./load-worker.ts", import.meta.url).href);
  return new Promise<T>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<LoadReply<T>>) => {
      const reply = event.data;
      if ("prepared" in reply) resolve(reply.prepared);
      else if ("file" in reply.error) reject(new DatasetError(reply.error.file, reply.error.problem, reply.error.fix));
      else reject(new Error(reply.error.message));
    };
    worker.onerror = (event) => reject(new Error(`the dataset loader stopped: ${event.message}`));
    worker.postMessage(request);
  }).finally(() => worker.terminate());
}
