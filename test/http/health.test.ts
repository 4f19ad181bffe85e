import { expect, setDefaultTimeout, test } from "bun:test";
import { scaled } from "../support/slowness.ts";
import { testSnapshot } from "../support/test-app.ts";
import { signedInDashboard } from "../support/signed-in-dashboard.ts";

// The bundled IP data loads once per process; a loaded machine needs more than the 5 s default.
setDefaultTimeout(scaled(30_000));

const INSTALL = "/opt/riskcheck-7f3a";
const COMMANDS = {
  update: `${INSTALL}/riskcheck update --data-dir ${INSTALL}/data`,
  settle: `${INSTALL}/riskcheck email deny NAME --reason "why" --data-dir ${INSTALL}/data`,
  refreshOffBy: "--update-every off",
};

test("/healthz, which anyone may read, names the commands without the install's paths; the dashboard gives them to paste", async () => {
  const snapshot = await testSnapshot();
  const t = await signedInDashboard({
    snapshot: { ...snapshot, email: { ...snapshot.email, heldBack: new Set(["disputed.example"]) } },
    warningCommands: COMMANDS,
    privatePaths: { [`${INSTALL}/data`]: "the data directory" },
  });
  const health = (await (await t.request("/healthz")).json()) as { warnings: string[] };
  const text = health.warnings.join("\n");
  expect(text).toContain("settle each with: riskcheck email deny NAME");
  expect(text).toContain("run: riskcheck update");
  expect(text).not.toContain(INSTALL);
  const page = (await t.browser.get("/dashboard")).body;
  expect(page).toContain(`${INSTALL}/riskcheck email deny NAME`);
});
