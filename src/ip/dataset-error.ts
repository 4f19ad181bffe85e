import { RUNNING_COMPILED } from "../runtime/compiled.ts";

/** Where a data directory comes from, for fixes: `npm install` in the project, or the data shipped beside the compiled binary. */
export const DATA_DIR_ORIGIN = RUNNING_COMPILED
  ? 'the data directory shipped beside the binary, or one that "riskcheck update --data-dir DIR" fills'
  : '"npm install" in the project makes ./data with the bundled datasets';

const RESTORE = RUNNING_COMPILED
  ? 'copy the data directory shipped with the binary again, or run "riskcheck update"'
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
