import { expect, test } from "bun:test";
import { loadConfig } from "../../src/app/config.ts";
import { UsageError } from "../../src/app/usage-error.ts";
import { MAX_TIMER_MS, setLongTimeout } from "../../src/time/long-timeout.ts";

test("a drain timeout or flush period past setTimeout's limit is a usage error, not a 1 ms timer", () => {
  for (const variable of ["RISKCHECK_DRAIN_TIMEOUT_MS", "RISKCHECK_USAGE_FLUSH_MS"]) {
    expect(() => loadConfig({}, { [variable]: "3000000000" })).toThrow(UsageError);
    expect(() => loadConfig({}, { [variable]: "3000000000" })).toThrow(`${variable} must be between`);
    expect(() => loadConfig({}, { [variable]: String(MAX_TIMER_MS) })).not.toThrow();
  }
});

test("a long timeout is waited out in steps no longer than setTimeout takes, and can be cleared", async () => {
  const armed: number[] = [];
  const original = globalThis.setTimeout;
  let fired = false;
  // Record the delays asked of setTimeout without waiting them.
  globalThis.setTimeout = ((_run: () => void, ms: number) => {
    armed.push(ms);
    return original(() => {}, 0);
  }) as typeof setTimeout;
  try {
    const timer = setLongTimeout(() => (fired = true), 30 * 86_400_000);
    timer.clear();
  } finally {
    globalThis.setTimeout = original;
  }
  expect(armed).toEqual([MAX_TIMER_MS]);
  expect(fired).toBe(false);
  let ran = false;
  await new Promise<void>((resolve) => setLongTimeout(() => resolve(void (ran = true)), 5));
  expect(ran).toBe(true);
});
