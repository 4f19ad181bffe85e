/**
 * Waits for `work` at most `ms`: past that, `onTimeout` runs (to stop what is waited for)
 * and the wait fails with an error naming `what`, so that no setup or teardown of a test
 * can wait without end.
 */
export async function withinDeadline<T>(
  what: string,
  ms: number,
  work: Promise<T>,
  onTimeout?: () => unknown,
): Promise<T> {
  let timer: Timer | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        onTimeout?.();
      } finally {
        reject(new Error(`${what} took longer than ${ms / 1000} s`));
      }
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ends a child process: `signal` first, SIGKILL if it has not exited after `graceMs`; resolves with its exit code once it is gone. */
export async function stopProcess(
  proc: { kill(signal?: NodeJS.Signals | number): void; readonly exited: Promise<number> },
  signal: NodeJS.Signals = "SIGTERM",
  graceMs = 5_000,
): Promise<number> {
  proc.kill(signal);
  const exited = await Promise.race([proc.exited, Bun.sleep(graceMs).then(() => null)]);
  if (exited !== null) return exited;
  proc.kill("SIGKILL");
  return await withinDeadline("a child process killed with SIGKILL to exit", 5_000, proc.exited);
}
