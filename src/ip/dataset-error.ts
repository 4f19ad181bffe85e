import { RUNNING_COMPILED } from "../runtime/compiled.ts";

/** Where a data directory comes from, for fixes: `npm install` in the project, or the binary, which fills a new or empty one. */
export const DATA_DIR_ORIGIN = RUNNING_COMPILED
  ? "a new or empty directory, which the binary fills with the data it carries"
  : '"npm install" in the project makes ./data with the bundled datasets';

const RESTORE = RUNNING_COMPILED
  ? 'run "riskcheck update" to write it again, or "riskcheck update --rollback" to the version before'
  : 'run "npm install" to restore the bundled data, or "riskcheck update"';

/** A dataset that cannot be used; the message names the file and the fix. */
export class DatasetError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly fix = RESTORE,
  ) {
    super(`${file}: ${problem}; ${fix}`);
  }
}
