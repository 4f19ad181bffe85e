import { type Config, loadConfig } from "../app/config.ts";
import { hasDatasetVersion } from "../datasets/data-dir-kind.ts";
import { type StartedLoad, startFirstLoad } from "../datasets/start-load.ts";
import { parseCommandLine, wantsHelp } from "./command-spec.ts";
import { SERVE } from "./commands.ts";

/**
 * `serve`'s first dataset load, started from the command line alone; null for another
 * command, a help request, a command line `serve` refuses (it says why itself), or a data
 * directory without datasets yet (`serve` writes the bundled ones first).
 */
export function startServeLoad(argv: readonly string[], env: Record<string, string | undefined>): StartedLoad | null {
  const [first, ...args] = argv;
  if (first !== "serve" || wantsHelp(args)) return null;
  let dataDir: string;
  let emailRule: Config["emailEvidence"];
  try {
    // Quietly: `serve` reads the configuration again, and warns then.
    ({ dataDir, emailEvidence: emailRule } = loadConfig(parseCommandLine(SERVE, args).values, env, () => {}));
  } catch {
    return null;
  }
  if (!hasDatasetVersion(dataDir)) return null;
  return startFirstLoad(dataDir, emailRule);
}

/** What the entry point (main.ts) began before it loaded the commands. */
export interface RunContext {
  /** `serve`'s first dataset load (`startServeLoad`), or null. */
  readonly startedLoad: StartedLoad | null;
}
