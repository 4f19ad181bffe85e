import { expect, setDefaultTimeout, test } from "bun:test";
import { truncateSync } from "node:fs";
import { join } from "node:path";
import { makeDataDir, runCli, runCliAsync, startServe } from "../support/processes.ts";
import { scaled } from "../support/slowness.ts";

// These tests start real processes; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(60_000));

test("truncating the key-change signal file under a running server neither crashes it nor stops revocations reaching it", async () => {
  const dir = makeDataDir();
  const dbPath = join(dir, "r.sqlite");
  const env = { RISKCHECK_DATA_DIR: dir, RISKCHECK_DB: dbPath };
  const [kept, revoked] = ["kept", "revoked"].map(
    (name) => runCli(["keys", "create", "--name", name], env).stdout.trimEnd().split("\n").at(-1)!,
  );
  const server = await startServe([], env);
  try {
    const status = async (key: string) =>
      (await fetch(`${server.url}/v1/check?email=someone@gmail.com`, { headers: { authorization: `Bearer ${key}` } }))
        .status;
    expect(await status(kept)).toBe(200);
    // As `truncate -s 0 DATA/riskcheck.sqlite-signal` or an in-place restore of the data directory does.
    truncateSync(`${dbPath}-signal`, 0);
    for (let i = 0; i < 20; i++) expect(await status(kept)).toBe(200);
    expect((await runCliAsync(["keys", "revoke", "revoked"], env)).code).toBe(0);
    expect(await status(revoked)).toBe(401);
    expect(await status(kept)).toBe(200);
  } finally {
    const code = await server.stop();
    expect(server.output()).not.toContain("Bus error");
    expect(code).toBe(0);
  }
});
