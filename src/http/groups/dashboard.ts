import { Elysia } from "elysia";
import type { ClientResolver, Listening } from "../client-info.ts";
import { dashboardAsset, dashboardSections } from "../../dashboard/controller.ts";
import type { DashboardDeps } from "../../dashboard/dashboard-deps.ts";
import { API_ERRORS, errorResponse } from "../errors.ts";
import { synchronous } from "../synchronous.ts";

/** The operator's key management pages under /dashboard; the pages read their forms and cookies themselves. */
export function dashboard(deps: DashboardDeps, client: ClientResolver, listening: Listening) {
  const { signIn, keys, key, email, ip, reports, policy, audit } = dashboardSections(deps);
  return (
    new Elysia({ prefix: "/dashboard" })
      .get(
        "/assets/:name",
        synchronous(
          ({ params }: { params: { name: string } }) =>
            dashboardAsset(params.name) ?? errorResponse(API_ERRORS.notFound),
        ),
      )
      // What a browser's address bar may add; the API's paths stay exact.
      .get(
        "/",
        synchronous(() => new Response(null, { status: 308, headers: { location: "/dashboard" } })),
      )
      // Every page below knows who asks: the client's address (proxies resolved) and whether it came over TLS.
      .derive(({ request }) => ({ client: client.info(request, listening()) }))
      .get("", ({ request, client }) => keys.home(request, client))
      .post("/sign-in", ({ request, client }) => signIn.signIn(request, client))
      .post("/sign-out", ({ request, client }) => signIn.signOut(request, client))
      .post("/keys", ({ request, client }) => keys.createKey(request, client))
      .get("/keys/:id", ({ request, params }) => key.key(request, params.id))
      .post("/keys/:id", ({ request, params, client }) => key.updateKey(request, params.id, client))
      .post("/keys/:id/rotate", ({ request, params, client }) => key.rotateKey(request, params.id, client))
      .get("/keys/:id/revoke", ({ request, params }) => key.confirmRevoke(request, params.id))
      .post("/keys/:id/revoke", ({ request, params, client }) => key.revoke(request, params.id, client))
      .get("/email", ({ request, client }) => email.view(request, client))
      .post("/email", ({ request, client }) => email.add(request, client))
      .post("/email/remove", ({ request, client }) => email.remove(request, client))
      .get("/ip", ({ request, client }) => ip.view(request, client))
      .post("/ip", ({ request, client }) => ip.add(request, client))
      .post("/ip/remove", ({ request, client }) => ip.remove(request, client))
      .get("/reports", ({ request }) => reports.reports(request))
      .post("/reports/delete", ({ request, client }) => reports.deleteReports(request, client))
      .get("/policy", ({ request, client }) => policy.view(request, client))
      .post("/policy", ({ request, client }) => policy.replace(request, client))
      .post("/policy/rules", ({ request, client }) => policy.add(request, client))
      .post("/policy/mode", ({ request, client }) => policy.setMode(request, client))
      .post("/policy/move", ({ request, client }) => policy.move(request, client))
      .post("/policy/remove", ({ request, client }) => policy.remove(request, client))
      .get("/audit", ({ request }) => audit.audit(request))
  );
}
