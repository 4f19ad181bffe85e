import { expect } from "bun:test";
import { DashboardClient } from "./dashboard-client.ts";
import { createTestApp } from "./test-app.ts";

export const DASHBOARD_PASSWORD = "correct horse battery staple";

/** The test app with its dashboard password set, and a browser signed in to it. */
export async function signedInDashboard(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp({ adminPassword: DASHBOARD_PASSWORD, ...options });
  const browser = new DashboardClient((r) => t.handle(r));
  expect((await browser.signIn(DASHBOARD_PASSWORD)).status).toBe(303);
  return { ...t, browser };
}
