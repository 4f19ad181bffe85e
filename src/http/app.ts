import type { TrafficCounter } from "../collection-pacer.ts";
import type { RefreshState } from "../datasets/refresh-scheduler.ts";
import type { SnapshotHolder } from "../datasets/snapshot.ts";
import { type Endpoint, RequestMetrics } from "../metrics/request-metrics.ts";
import type { AdmissionDeps } from "./admission.ts";
import type { ClientResolver } from "./client-info.ts";
import { API_ERRORS, errorResponse, jsonResponse } from "./errors.ts";
import { OPENAPI_JSON } from "./openapi-document.ts";
import { Dashboard, type DashboardDeps } from "./routes/dashboard.ts";
import { checkEmail } from "./routes/email.ts";
import { about, health } from "./routes/health.ts";
import { checkIp } from "./routes/ip.ts";
import { type MetricsDeps, metrics } from "./routes/metrics.ts";

export interface AppDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly dashboard: DashboardDeps;
  /** The client's address and TLS, believing forwarding headers only from trusted proxies. */
  readonly client: ClientResolver;
  readonly startedMs: number;
  /** Where failures the routes did not expect are reported; never the request's secrets. */
  readonly logError: (message: string) => void;
  readonly traffic: TrafficCounter;
  readonly metrics: MetricsDeps;
  /** What the operator should know about the data being served. */
  readonly warnings: () => string[];
  readonly refreshState: () => RefreshState | null;
}

type Server = Bun.Server<unknown>;
type Handler = (request: Bun.BunRequest, server: Server) => Response | Promise<Response>;
export type RouteTable = Record<string, Partial<Record<"GET" | "POST", Handler>>>;

/** The whole HTTP surface, in the shape `Bun.serve` takes: its router calls the handlers directly. */
export interface HttpApp {
  readonly routes: RouteTable;
  /** Whatever no route takes: 404. */
  fetch(request: Request): Response;
  /** A failure outside any route's own handling: logged, 500. */
  error(error: Error): Response;
}

/** Upload limit for every request: the API takes none and the dashboard's forms are tiny. */
const MAX_REQUEST_BODY_BYTES = 64 * 1024;

/** Listens with the app: the server and the HTTP tests start it alike. */
export function listen(app: HttpApp, hostname: string, port: number): Server {
  // reusePort off: with SO_REUSEPORT a second server on the port would start and take half the traffic.
  return Bun.serve({ hostname, port, routes: app.routes, fetch: app.fetch, error: app.error, maxRequestBodySize: MAX_REQUEST_BODY_BYTES, development: false, reusePort: false });
}

export function createApp(deps: AppDeps): HttpApp {
  const dashboard = new Dashboard(deps.dashboard);
  const { requests } = deps.metrics;
  const failed = (where: string, error: unknown): Response => {
    deps.logError(`${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return errorResponse(API_ERRORS.internal);
  };
  /** Counts and times every answer of a route; what a route throws becomes the logged 500. */
  const measured = (endpoint: Endpoint, route: Handler): Handler => {
    const index = RequestMetrics.endpointIndex(endpoint);
    const done = (response: Response, started: number): Response => {
      requests.record(index, response.status, performance.now() - started);
      return response;
    };
    return (request, server) => {
      const started = performance.now();
      const where = () => `${request.method} ${new URL(request.url).pathname}`;
      try {
        const response = route(request, server);
        return response instanceof Promise ? response.then((r) => done(r, started), (error) => done(failed(where(), error), started)) : done(response, started);
      } catch (error) {
        return done(failed(where(), error), started);
      }
    };
  };
  const { traffic, client } = deps;
  const page = (route: Handler) => measured("/dashboard", route);
  const other = RequestMetrics.endpointIndex("other");
  return {
    routes: {
      "/v1/check": {
        GET: measured("/v1/check", (request) => {
          traffic.served++;
          return checkEmail(deps, request);
        }),
      },
      "/v1/ip-reputation-check": {
        GET: measured("/v1/ip-reputation-check", (request, server) => {
          traffic.served++;
          return checkIp(deps, request, server);
        }),
      },
      "/healthz": { GET: measured("/healthz", () => health(deps.snapshots, deps.startedMs, deps.now(), deps.warnings(), deps.refreshState())) },
      "/v1/about": { GET: measured("/v1/about", () => about(deps.snapshots)) },
      "/openapi.json": { GET: measured("/openapi.json", () => jsonResponse(OPENAPI_JSON)) },
      "/metrics": { GET: measured("/metrics", (request) => metrics(deps.metrics, request)) },
      "/dashboard": { GET: page((request, server) => dashboard.home(request, client.info(request, server))) },
      // What a browser's address bar may add; the API's paths stay exact.
      "/dashboard/": { GET: () => new Response(null, { status: 308, headers: { location: "/dashboard" } }) },
      // The dashboard reads its forms itself; a body of another type gets a 4xx from it.
      "/dashboard/sign-in": { POST: page((request, server) => dashboard.signIn(request, client.info(request, server))) },
      "/dashboard/sign-out": { POST: page((request, server) => dashboard.signOut(request, client.info(request, server))) },
      "/dashboard/keys": { POST: page((request) => dashboard.createKey(request)) },
      "/dashboard/keys/:id/revoke": {
        GET: page((request) => dashboard.confirmRevoke(request, request.params.id)),
        POST: page((request) => dashboard.revoke(request, request.params.id)),
      },
      "/dashboard/assets/:name": { GET: page((request) => Dashboard.asset(request.params.name)) },
    },
    fetch() {
      requests.count(other, 404);
      return errorResponse(API_ERRORS.notFound);
    },
    error(error) {
      requests.count(other, 500);
      return failed("request", error);
    },
  };
}
