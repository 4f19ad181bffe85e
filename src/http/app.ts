import { type AnyElysia, Elysia } from "elysia";
import type { TrafficCounter } from "../metrics/traffic-counter.ts";
import type { ClientResolver } from "./client-info.ts";
import { type ApiDeps, api } from "./groups/api.ts";
import { dashboard } from "./groups/dashboard.ts";
import { type OperatorDeps, operator } from "./groups/operator.ts";
import { lifecycle } from "./lifecycle.ts";
import type { DashboardDeps } from "../dashboard/dashboard-deps.ts";

export interface AppDeps extends ApiDeps, OperatorDeps {
  readonly dashboard: DashboardDeps;
  /** The client's address and TLS, believing forwarding headers only from trusted proxies. */
  readonly client: ClientResolver;
  /** Where failures the routes did not expect are reported; never the request's secrets. */
  readonly logError: (message: string) => void;
  readonly traffic: TrafficCounter;
}

/**
 * Bun's own upload limit, over which it would answer a bare 413 before any route runs: set
 * out of reach, so that the limits are the app's. The routes that read a body stop reading
 * at their own limits and say so in the documented JSON (the batch and the reports 1 MiB,
 * the dashboard's forms 64 KiB); the others never read one.
 */
const MAX_REQUEST_BODY_BYTES = Number.MAX_SAFE_INTEGER;

/** The whole HTTP surface, one Elysia app: `listen` serves it, the tests call its `handle`. */
export function createApp(deps: AppDeps) {
  // strictPath: the API's paths are exact (`/v1/check/` is a 404). systemRouter off: Elysia
  // routes every request itself (a switch on the path for fixed ones), so a socket and
  // `handle` take one road; handed to Bun's router, `/dashboard/` would replace `/dashboard`.
  const app = new Elysia({ strictPath: true, systemRouter: false });
  const listening = () => app.server as Bun.Server<unknown> | null;
  return app
    .use(lifecycle(deps.metrics.requests, deps.storage, deps.logError))
    .use(api(deps, listening))
    .use(operator(deps))
    .use(dashboard(deps.dashboard, deps.client, listening));
}

/** How long an idle connection stays open: the 30 s `app.listen` sets (Bun's own default is 10 s). */
const IDLE_TIMEOUT_SECONDS = 30;

/**
 * Serves the app; the server and the socket tests start it alike. Bun.serve with the app's
 * `fetch`, not `app.listen`: that composes the handler a second time once listening, reloads
 * the server twice and asks for a garbage collection, all before the first request is answered
 * (some 2.5 ms of the binary's start). Nothing else it does applies here: this app has no
 * start or stop hooks, no WebSocket route and, with systemRouter off, nothing for Bun's router.
 */
export function listen(app: AnyElysia, hostname: string, port: number): Bun.Server<unknown> {
  // reusePort off: with SO_REUSEPORT a second server on the port would start and take half the traffic.
  app.server = Bun.serve({
    hostname,
    port,
    fetch: app.fetch,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    idleTimeout: IDLE_TIMEOUT_SECONDS,
    development: false,
    reusePort: false,
  });
  return app.server;
}
