/** A dataset that cannot be used; the message names the file and the fix. */
export class DatasetError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly fix = 'run "npm install" to restore the bundled data, or "riskcheck update"',
  ) {
    super(`${file}: ${problem}; ${fix}`);
  }
}
