import { expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

/** The CLI with no environment at all (`env -i`, a cron job, a bare systemd unit): no USER, no LOGNAME, no HOME. */
function bare(args: string[]) {
  const run = Bun.spawnSync([process.execPath, CLI, ...args], {
    env: {},
    stdin: "ignore",
    timeout: scaled(60_000),
    killSignal: "SIGKILL",
  });
  return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
}

test("without USER in its environment, the CLI's acts are recorded under the account's name, not its uid", () => {
  const account = Bun.spawnSync(["id", "-un"]).stdout.toString().trim();
  expect(account).not.toBe("");
  const dataDir = mkdtempSync(join(tmpdir(), "riskcheck-bare-"));
  expect(bare(["keys", "create", "--name", "cron-made", "--data-dir", dataDir]).code).toBe(0);
  const listed = bare(["audit", "list", "--action", "key.created", "--json", "--data-dir", dataDir]);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toMatchObject([
    { action: "key.created", channel: "cli", actor: `${account}@${hostname()}` },
  ]);
});
