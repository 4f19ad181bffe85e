import { Elysia } from "elysia";
import type { ClientResolver, Listening } from "../client-info.ts";
import { Dashboard, type DashboardDeps } from "../../dashboard/controller.ts";
import { API_ERRORS, errorResponse } from "../errors.ts";
import { synchronous } from "../synchronous.ts";

/** The operator's key management pages under /dashboard; the pages read their forms and cookies themselves. */
export function dashboard(deps: DashboardDeps, client: ClientResolver, listening: Listening) {
  const pages = new Dashboard(deps);
  return (
    new Elysia({ prefix: "/dashboard" })
      .get("", async ({ request }) => pages.home(request, client.info(request, listening())))
      // What a browser's address bar may add; the API's paths stay exact.
      .get(
        "/",
        synchronous(() => new Response(null, { status: 308, headers: { location: "/dashboard" } })),
      )
      .post("/sign-in", async ({ request }) => pages.signIn(request, client.info(request, listening())))
      .post("/sign-out", async ({ request }) => pages.signOut(request, client.info(request, listening())))
      .post("/keys", async ({ request }) => pages.createKey(request, client.info(request, listening())))
      .get("/keys/:id", async ({ request, params }) => pages.key(request, params.id))
      .post("/keys/:id", async ({ request, params }) =>
        pages.updateKey(request, params.id, client.info(request, listening())),
      )
      .post("/keys/:id/rotate", async ({ request, params }) =>
        pages.rotateKey(request, params.id, client.info(request, listening())),
      )
      .get("/keys/:id/revoke", async ({ request, params }) => pages.confirmRevoke(request, params.id))
      .post("/keys/:id/revoke", async ({ request, params }) =>
        pages.revoke(request, params.id, client.info(request, listening())),
      )
      .get("/email", async ({ request }) => pages.emailOverrides(request, client.info(request, listening())))
      .post("/email", async ({ request }) => pages.addOverride(request, client.info(request, listening())))
      .post("/email/remove", async ({ request }) => pages.removeOverride(request, client.info(request, listening())))
      .get("/ip", async ({ request }) => pages.ipOverrides(request))
      .post("/ip", async ({ request }) => pages.addIpOverride(request, client.info(request, listening())))
      .post("/ip/remove", async ({ request }) => pages.removeIpOverride(request, client.info(request, listening())))
      .get("/reports", async ({ request }) => pages.reports(request))
      .get("/audit", async ({ request }) => pages.audit(request))
      .post("/reports/delete", async ({ request }) => pages.deleteReports(request, client.info(request, listening())))
      .get(
        "/assets/:name",
        synchronous(
          ({ params }: { params: { name: string } }) =>
            Dashboard.asset(params.name) ?? errorResponse(API_ERRORS.notFound),
        ),
      )
  );
}
