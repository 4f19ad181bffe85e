import { afterAll } from "bun:test";
import { appendFileSync, readFileSync } from "node:fs";

/**
 * Not preloaded by default: `npx bun test --parallel=6 --preload ./test/support/file-cpu-log.ts`
 * appends one line a test file to $RISKCHECK_TEST_CPU_LOG (or ./file-cpu.tsv): the file, the CPU
 * seconds of the worker while it ran, those of the processes it started and reaped (servers, CLI
 * runs, updates), its wall seconds and when it started (Unix seconds). Where the suite's time
 * goes (docs/testing.md) is read off these.
 */
const LOG = process.env.RISKCHECK_TEST_CPU_LOG ?? "file-cpu.tsv";
/** Clock ticks a second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

const began = Date.now();
const before = cpuTicks();
afterAll(() => {
  const after = cpuTicks();
  const seconds = (ticks: number) => (ticks / TICKS).toFixed(2);
  appendFileSync(
    LOG,
    `${Bun.main}\t${seconds(after.self - before.self)}\t${seconds(after.children - before.children)}\t${((Date.now() - began) / 1000).toFixed(2)}\t${(began / 1000).toFixed(1)}\n`,
  );
});

/** utime + stime and cutime + cstime of /proc/self/stat (after the parenthesised command, which may hold spaces). */
function cpuTicks(): { self: number; children: number } {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .map(Number);
  return { self: fields[11]! + fields[12]!, children: fields[13]! + fields[14]! };
}
