import type { ParsedCommandLine } from "./command-spec.ts";
import type { ADMIN_SET_PASSWORD, ADMIN_UNLOCK } from "./commands.ts";
import { loadConfig } from "../app/config.ts";
import { UsageError } from "../app/usage-error.ts";
import { checkNewPassword, setAdminPassword } from "../dashboard/admin-password.ts";
import { parseIpAddress } from "../ip/address/parse.ts";
import { hint } from "../app/self-command.ts";
import { withExistingStores, withStoresMadeIfNeeded } from "./database.ts";

export async function setPassword({ values }: ParsedCommandLine<typeof ADMIN_SET_PASSWORD>): Promise<number> {
  const config = loadConfig(values, process.env);
  // One trailing line break is what `echo` or a terminal adds; it is not part of the password.
  const password = (await Bun.stdin.text()).replace(/\r?\n$/, "");
  const problem = checkNewPassword(password);
  if (problem)
    throw new UsageError(
      `${problem}; pipe it on standard input, e.g. printf '%s' "$PASSWORD" | ${hint(config, "admin set-password")}`,
    );
  await withStoresMadeIfNeeded(config, values, async ({ adminPassword }, audit) => {
    const how = (await adminPassword.passwordHash()) === null ? "set" : "changed";
    await audit.act(
      `admin_password.${how}`,
      "dashboard",
      (tx) => setAdminPassword(tx.adminPassword, password),
      () => ({ detail: "every dashboard session was signed out" }),
    );
  });
  console.log("Dashboard password set; existing dashboard sessions were signed out.");
  if (config.adminPassword) console.log("Note: RISKCHECK_ADMIN_PASSWORD is set and takes precedence while it is.");
  return 0;
}

/** `admin unlock [ADDRESS]`: lifts dashboard sign-in lock-outs, of one address or of all; a running server sees it at once. */
export async function unlock({ values, operand }: ParsedCommandLine<typeof ADMIN_UNLOCK>): Promise<number> {
  const address = operand || null;
  if (address !== null && parseIpAddress(address) === null)
    throw new UsageError(`admin unlock takes an IP address, got "${address}"`);
  const config = loadConfig(values, process.env);
  const unlocked = await withExistingStores(config, values, async ({ signInThrottle }, audit) => {
    const lifted = await signInThrottle.unlock(address, Date.now());
    await audit.record("sign_in.unlocked", address ?? "every address", {
      detail: lifted.length === 0 ? "nothing was locked out" : `lifted the lock-out of ${lifted.join(", ")}`,
    });
    return lifted;
  });
  console.log(
    unlocked.length === 0
      ? `Nothing was locked out${address === null ? "" : ` for ${address}`}; failed sign-ins are forgotten.`
      : `Lifted the dashboard sign-in lock-out of ${unlocked.join(", ")}.`,
  );
  return 0;
}
