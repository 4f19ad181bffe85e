import { DASHBOARD_CSS, DASHBOARD_ICON, DASHBOARD_JS } from "./assets.ts";
import { AuditActions } from "./actions/audit.ts";
import { KeyActions } from "./actions/key.ts";
import { KeysActions } from "./actions/keys.ts";
import { OverridesActions } from "./actions/overrides.ts";
import { PolicyActions } from "./actions/policy.ts";
import { ReportsActions } from "./actions/reports.ts";
import { SignInActions } from "./actions/sign-in.ts";
import type { DashboardDeps } from "./dashboard-deps.ts";
import { Gate } from "./gate.ts";

/**
 * The dashboard's sections, one per page of pages/, behind one gate (sessions, the CSRF check
 * on every form, the sign-in form). src/http/groups/dashboard.ts binds them to routes.
 */
export function dashboardSections(deps: DashboardDeps) {
  const gate = new Gate(deps);
  return {
    signIn: new SignInActions(deps, gate),
    keys: new KeysActions(deps, gate),
    key: new KeyActions(deps, gate),
    email: new OverridesActions(deps, gate, "email"),
    ip: new OverridesActions(deps, gate, "ip"),
    reports: new ReportsActions(deps, gate),
    policy: new PolicyActions(deps, gate),
    audit: new AuditActions(deps, gate),
  };
}

const ASSETS = new Map([
  ["dashboard.css", { body: DASHBOARD_CSS, type: "text/css; charset=utf-8" }],
  ["dashboard.js", { body: DASHBOARD_JS, type: "text/javascript; charset=utf-8" }],
  ["icon.svg", { body: DASHBOARD_ICON, type: "image/svg+xml" }],
]);

/** The asset, or null for a name the dashboard has none of. */
export function dashboardAsset(name: string): Response | null {
  const asset = ASSETS.get(name);
  if (!asset) return null;
  return new Response(asset.body, {
    headers: { "content-type": asset.type, "x-content-type-options": "nosniff", "cache-control": "no-cache" },
  });
}
