import { bearer } from "@elysiajs/bearer";
import { Elysia } from "elysia";
import type { SnapshotHolder } from "../datasets/snapshot.ts";
import type { AdmissionDeps } from "./admission.ts";
import { API_ERRORS, errorResponse } from "./errors.ts";
import { type ClientInfo, Dashboard, type DashboardDeps } from "./routes/dashboard.ts";
import { checkEmail } from "./routes/email.ts";
import { health } from "./routes/health.ts";
import { checkIp } from "./routes/ip.ts";

export interface AppDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly dashboard: DashboardDeps;
  /** The client's address (believing forwarding headers only from trusted proxies) and whether it used TLS. */
  readonly clientInfo: (request: Request, server: Bun.Server<unknown> | null) => ClientInfo;
  readonly startedMs: number;
  /** Where failures the routes did not expect are reported; never the request's secrets. */
  readonly logError: (message: string) => void;
}

/** The whole HTTP surface, without listening: tests drive it through `app.handle`. */
export function createApp(deps: AppDeps) {
  const dashboard = new Dashboard(deps.dashboard);
  return new Elysia()
    .use(bearer())
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") return errorResponse(API_ERRORS.notFound);
      deps.logError(`${request.method} ${new URL(request.url).pathname}: ${code} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return errorResponse(API_ERRORS.internal);
    })
    .get("/v1/check", ({ request, bearer }) => checkEmail(deps, request, bearer))
    .get("/v1/ip-reputation-check", ({ request, bearer, server }) => checkIp(deps, request, bearer, () => deps.clientInfo(request, server).address))
    .get("/healthz", () => health(deps.snapshots, deps.startedMs, deps.now()))
    .get("/dashboard", ({ request, server }) => dashboard.home(request, deps.clientInfo(request, server)))
    .post("/dashboard/sign-in", ({ request, body, server }) => dashboard.signIn(request, body, deps.clientInfo(request, server)))
    .post("/dashboard/sign-out", ({ request, body, server }) => dashboard.signOut(request, body, deps.clientInfo(request, server)))
    .post("/dashboard/keys", ({ request, body }) => dashboard.createKey(request, body))
    .get("/dashboard/keys/:id/revoke", ({ request, params }) => dashboard.confirmRevoke(request, params.id))
    .post("/dashboard/keys/:id/revoke", ({ request, body, params }) => dashboard.revoke(request, body, params.id))
    .get("/dashboard/assets/:name", ({ params }) => Dashboard.asset(params.name));
}

export type App = ReturnType<typeof createApp>;
