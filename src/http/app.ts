import { Elysia } from "elysia";
import type { TrafficCounter } from "../collection-pacer.ts";
import type { RefreshState } from "../datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "../datasets/snapshot.ts";
import { type Endpoint, RequestMetrics } from "../metrics/request-metrics.ts";
import type { AdmissionDeps } from "./admission.ts";
import { API_ERRORS, errorResponse, jsonResponse } from "./errors.ts";
import { OPENAPI_JSON } from "./openapi-document.ts";
import { type ClientInfo, Dashboard, type DashboardDeps } from "./routes/dashboard.ts";
import { checkEmail } from "./routes/email.ts";
import { about, health } from "./routes/health.ts";
import { checkIp } from "./routes/ip.ts";
import { type MetricsDeps, metrics } from "./routes/metrics.ts";

export interface AppDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly dashboard: DashboardDeps;
  /** The client's address (believing forwarding headers only from trusted proxies) and whether it used TLS. */
  readonly clientInfo: (request: Request, server: Bun.Server<unknown> | null) => ClientInfo;
  readonly startedMs: number;
  /** Where failures the routes did not expect are reported; never the request's secrets. */
  readonly logError: (message: string) => void;
  readonly traffic: TrafficCounter;
  readonly metrics: MetricsDeps;
  /** What the operator should know about the data being served. */
  readonly warnings: () => string[];
  readonly refreshState: () => RefreshState | null;
}

/** A route's handler: the request, and what else it needs (the server, or Elysia's context). */
type Route<Extra> = (request: Request, extra: Extra) => Response | Promise<Response>;
type Server = Bun.Server<unknown> | null;

/** What the dashboard's routes take from Elysia's context. */
interface FormContext {
  readonly request: Request;
  readonly params: Readonly<Record<string, string>>;
}

/** The whole HTTP surface, without listening: tests drive it through `app.handle`. */
export function createApp(deps: AppDeps) {
  const dashboard = new Dashboard(deps.dashboard);
  const { requests } = deps.metrics;
  const failed = (request: Request, code: string, error: unknown): Response => {
    deps.logError(`${request.method} ${new URL(request.url).pathname}: ${code} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return errorResponse(API_ERRORS.internal);
  };
  /** Counts and times every answer of a route, a failure's 500 included. */
  const measured = <Extra>(endpoint: Endpoint, route: Route<Extra>): Route<Extra> => {
    const index = RequestMetrics.endpointIndex(endpoint);
    const done = (response: Response, started: number): Response => {
      requests.record(index, response.status, performance.now() - started);
      return response;
    };
    return (request, extra) => {
      const started = performance.now();
      try {
        const response = route(request, extra);
        return response instanceof Promise ? response.then((r) => done(r, started), (error) => done(failed(request, "UNKNOWN", error), started)) : done(response, started);
      } catch (error) {
        return done(failed(request, "UNKNOWN", error), started);
      }
    };
  };
  /**
   * The two API endpoints, as plain handlers that Bun's router calls directly when
   * serving (no Elysia context per request); Elysia routes them too, for `app.handle`.
   */
  const { traffic } = deps;
  const api = {
    "/v1/check": measured("/v1/check", (request: Request) => {
      traffic.served++;
      return checkEmail(deps, request);
    }),
    "/v1/ip-reputation-check": measured("/v1/ip-reputation-check", (request: Request, server: Server) => {
      traffic.served++;
      return checkIp(deps, request, server);
    }),
  };
  const nativeRoutes = Object.fromEntries(Object.entries(api).map(([path, route]) => [path, { GET: route }]));
  const healthz = measured("/healthz", () => health(deps.snapshots, deps.startedMs, deps.now(), deps.warnings(), deps.refreshState()));
  const aboutData = measured("/v1/about", () => about(deps.snapshots));
  const metricsText = measured("/metrics", (request) => metrics(deps.metrics, request));
  const openApi = measured("/openapi.json", () => jsonResponse(OPENAPI_JSON));
  const page = (route: Route<FormContext>) => {
    const counted = measured("/dashboard", route);
    return (context: FormContext) => counted(context.request, context);
  };
  const other = RequestMetrics.endpointIndex("other");
  // Handlers read `app.server` rather than the context's `server`, which Elysia would define per request.
  const server = (): Server => app.server;
  const app = new Elysia({ serve: { routes: nativeRoutes } as object })
    .onError(({ code, error, request }) => {
      const response = code === "NOT_FOUND" ? errorResponse(API_ERRORS.notFound) : failed(request, String(code), error);
      requests.count(other, response.status);
      return response;
    })
    .get("/v1/check", ({ request }) => api["/v1/check"](request, null))
    .get("/v1/ip-reputation-check", ({ request }) => api["/v1/ip-reputation-check"](request, server()))
    .get("/healthz", ({ request }) => healthz(request, null))
    .get("/v1/about", ({ request }) => aboutData(request, null))
    .get("/openapi.json", ({ request }) => openApi(request, null))
    .get("/metrics", ({ request }) => metricsText(request, null))
    .get("/dashboard", page((request) => dashboard.home(request, deps.clientInfo(request, server()))))
    // The dashboard reads its forms itself (`parse: "none"`): other bodies get a 4xx, never Elysia's parse error.
    .post("/dashboard/sign-in", page((request) => dashboard.signIn(request, deps.clientInfo(request, server()))), { parse: "none" })
    .post("/dashboard/sign-out", page((request) => dashboard.signOut(request, deps.clientInfo(request, server()))), { parse: "none" })
    .post("/dashboard/keys", page((request) => dashboard.createKey(request)), { parse: "none" })
    .get("/dashboard/keys/:id/revoke", page((request, { params }) => dashboard.confirmRevoke(request, params.id)))
    .post("/dashboard/keys/:id/revoke", page((request, { params }) => dashboard.revoke(request, params.id)), { parse: "none" })
    .get("/dashboard/assets/:name", page((_, { params }) => Dashboard.asset(params.name)));
  return app;
}
