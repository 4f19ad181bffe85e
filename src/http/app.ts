import { Elysia } from "elysia";
import type { TrafficCounter } from "../collection-pacer.ts";
import type { RefreshState } from "../datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "../datasets/snapshot.ts";
import type { AdmissionDeps } from "./admission.ts";
import { API_ERRORS, errorResponse } from "./errors.ts";
import { type ClientInfo, Dashboard, type DashboardDeps } from "./routes/dashboard.ts";
import { checkEmail } from "./routes/email.ts";
import { about, health } from "./routes/health.ts";
import { checkIp } from "./routes/ip.ts";

export interface AppDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly dashboard: DashboardDeps;
  /** The client's address (believing forwarding headers only from trusted proxies) and whether it used TLS. */
  readonly clientInfo: (request: Request, server: Bun.Server<unknown> | null) => ClientInfo;
  readonly startedMs: number;
  /** Where failures the routes did not expect are reported; never the request's secrets. */
  readonly logError: (message: string) => void;
  readonly traffic: TrafficCounter;
  /** What the operator should know about the data being served. */
  readonly warnings: () => string[];
  readonly refreshState: () => RefreshState | null;
}

/** The whole HTTP surface, without listening: tests drive it through `app.handle`. */
export function createApp(deps: AppDeps) {
  const dashboard = new Dashboard(deps.dashboard);
  const failed = (request: Request, code: string, error: unknown): Response => {
    deps.logError(`${request.method} ${new URL(request.url).pathname}: ${code} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return errorResponse(API_ERRORS.internal);
  };
  /**
   * The two API endpoints, as plain handlers that Bun's router calls directly when
   * serving (no Elysia context per request); Elysia routes them too, for `app.handle`.
   */
  const { traffic } = deps;
  const api = {
    "/v1/check": (request: Request) => {
      traffic.served++;
      return checkEmail(deps, request);
    },
    "/v1/ip-reputation-check": (request: Request, server: Bun.Server<unknown> | null) => {
      traffic.served++;
      return checkIp(deps, request, server);
    },
  };
  const guarded =
    (handler: (request: Request, server: Bun.Server<unknown> | null) => Response) =>
    (request: Request, server: Bun.Server<unknown>): Response => {
      try {
        return handler(request, server);
      } catch (error) {
        return failed(request, "UNKNOWN", error);
      }
    };
  const nativeRoutes = Object.fromEntries(Object.entries(api).map(([path, handler]) => [path, { GET: guarded(handler) }]));
  // Handlers read `app.server` rather than the context's `server`, which Elysia would define per request.
  const app = new Elysia({ serve: { routes: nativeRoutes } as object })
    .onError(({ code, error, request }) => (code === "NOT_FOUND" ? errorResponse(API_ERRORS.notFound) : failed(request, String(code), error)))
    .get("/v1/check", ({ request }) => api["/v1/check"](request))
    .get("/v1/ip-reputation-check", ({ request }): Response => api["/v1/ip-reputation-check"](request, app.server))
    .get("/healthz", () => health(deps.snapshots, deps.startedMs, deps.now(), deps.warnings(), deps.refreshState()))
    .get("/v1/about", () => about(deps.snapshots))
    .get("/dashboard", ({ request }): Response => dashboard.home(request, deps.clientInfo(request, app.server)))
    // The dashboard reads its forms itself (`parse: "none"`): other bodies get a 4xx, never Elysia's parse error.
    .post("/dashboard/sign-in", ({ request }): Promise<Response> => dashboard.signIn(request, deps.clientInfo(request, app.server)), { parse: "none" })
    .post("/dashboard/sign-out", ({ request }): Promise<Response> => dashboard.signOut(request, deps.clientInfo(request, app.server)), { parse: "none" })
    .post("/dashboard/keys", ({ request }) => dashboard.createKey(request), { parse: "none" })
    .get("/dashboard/keys/:id/revoke", ({ request, params }) => dashboard.confirmRevoke(request, params.id))
    .post("/dashboard/keys/:id/revoke", ({ request, params }) => dashboard.revoke(request, params.id), { parse: "none" })
    .get("/dashboard/assets/:name", ({ params }) => Dashboard.asset(params.name));
  return app;
}
