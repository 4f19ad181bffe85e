import { availableParallelism, loadavg } from "node:os";

/**
 * How many times longer than on a quiet machine work takes here right now: every deadline of
 * the suite is written for a quiet 2-core machine and multiplied by this (`scaled`), so that a
 * slow or busy machine runs the suite slower instead of failing it.
 *
 * Measured once per test file, as it loads (each file of a `--parallel` run loads in a fresh
 * module registry): a fixed piece of CPU-bound work, timed against its time on a quiet machine.
 * Starting a process slows down as much (`bun -e 0`: 24 ms quiet, 56 ms beside two busy loops,
 * 134 ms beside eight, with the probe at 2.2× and 4.4×), so one figure serves both kinds of test.
 * A probe can land in a lull of a busy minute, so the load average counts too: the suite alone
 * keeps about six runnable threads per core (six workers and the processes they start on two
 * cores), and more than that is another's work the suite shares the machine with.
 * RISKCHECK_TEST_SLOWNESS (a number ≥ 1) replaces the measurement, e.g. on a machine known to be
 * slower than a moment's measurement shows.
 */

/** The probe's time on the quiet machine the deadlines are written for (2 vCPUs of an AMD EPYC, Bun 1.4.5). */
const QUIET_PROBE_MS = 27;
/** Runnable threads per core while the suite runs alone (about two a worker: load 12 on two cores). */
const SUITE_LOAD_PER_CORE = 6;
const PROBE_ROUNDS = 20_000_000;
/** Beyond this a reading says more about a stall during the probe than about the machine. */
const MOST = 20;

export const SLOWNESS = fromEnvironment(process.env.RISKCHECK_TEST_SLOWNESS) ?? measure();

/** `quietMs`, the time something may take on a quiet machine, as a deadline for this machine now. */
export function scaled(quietMs: number): number {
  return Math.ceil(quietMs * SLOWNESS);
}

function fromEnvironment(value: string | undefined): number | null {
  if (value === undefined || value === "") return null;
  const factor = Number(value);
  if (!(factor >= 1))
    throw new Error(`RISKCHECK_TEST_SLOWNESS must be a number of at least 1, not ${JSON.stringify(value)}`);
  return factor;
}

function measure(): number {
  probe(100_000); // compiled before it is timed
  const started = performance.now();
  const hash = probe(PROBE_ROUNDS);
  const probed = (performance.now() - started) / QUIET_PROBE_MS;
  const loaded = loadavg()[0]! / (SUITE_LOAD_PER_CORE * availableParallelism());
  // The hash takes part so that no compiler can drop the loop; it is never 0.5.
  return Math.min(MOST, Math.max(1, hash === 0.5 ? 0 : probed, loaded));
}

/** FNV-1a over the round numbers. */
function probe(rounds: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < rounds; i++) hash = Math.imul(hash ^ i, 16777619);
  return hash;
}
