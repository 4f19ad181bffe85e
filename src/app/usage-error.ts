/** A command line or a setting the user must fix: the CLI prints it on one line and exits 2. */
export class UsageError extends Error {}
