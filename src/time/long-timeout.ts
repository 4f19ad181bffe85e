/** The longest delay setTimeout honours; a longer one fires after 1 ms (Node and Bun alike). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface LongTimeout {
  clear(): void;
}

/**
 * Runs `run` once after `ms`, however long: a delay past MAX_TIMER_MS is waited out in
 * steps, so a 30-day refresh period is not cut to a millisecond.
 */
export function setLongTimeout(run: () => void, ms: number): LongTimeout {
  const due = Date.now() + ms;
  let timer: Timer;
  const arm = () => {
    const left = due - Date.now();
    timer = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(run, Math.max(0, left));
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}
