import { SLOWNESS, scaled } from "./slowness.ts";

/**
 * Waits for `work` at most `quietMs` on a quiet machine (scaled to this one's slowness): past
 * that, `onTimeout` runs (to stop what is waited for) and the wait fails with an error naming
 * `what`, so that no setup or teardown of a test can wait without end.
 */
export async function withinDeadline<T>(
  what: string,
  quietMs: number,
  work: Promise<T>,
  onTimeout?: () => unknown,
): Promise<T> {
  const ms = scaled(quietMs);
  let timer: Timer | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        onTimeout?.();
      } finally {
        reject(new Error(`${what} took longer than ${seconds(ms)}`));
      }
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `done` every `everyMs` until it holds, for at most `quietMs` on a quiet machine (scaled
 * to this one's slowness); resolves with the milliseconds it took, or fails naming `what`.
 */
export async function eventually(
  what: string,
  quietMs: number,
  done: () => boolean | Promise<boolean>,
  everyMs = 20,
): Promise<number> {
  const started = performance.now();
  const ms = scaled(quietMs);
  while (!(await done())) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${seconds(ms)}`);
    await Bun.sleep(everyMs);
  }
  return performance.now() - started;
}

/**
 * Ends a child process: `signal` first, SIGKILL if it has not exited after `graceMs` (on a quiet
 * machine, scaled to this one's slowness); resolves with its exit code once it is gone.
 */
export async function stopProcess(
  proc: { kill(signal?: NodeJS.Signals | number): void; readonly exited: Promise<number> },
  signal: NodeJS.Signals = "SIGTERM",
  graceMs = 5_000,
): Promise<number> {
  proc.kill(signal);
  const exited = await Promise.race([proc.exited, Bun.sleep(scaled(graceMs)).then(() => null)]);
  if (exited !== null) return exited;
  proc.kill("SIGKILL");
  return await withinDeadline("a child process killed with SIGKILL to exit", 5_000, proc.exited);
}

/** A deadline as the failure says it: its length, and the slowness it was scaled by when that mattered. */
function seconds(ms: number): string {
  return SLOWNESS > 1.05 ? `${ms / 1000} s (${SLOWNESS.toFixed(1)}× the quiet machine's deadline)` : `${ms / 1000} s`;
}
