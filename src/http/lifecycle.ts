import { Elysia } from "elysia";
import { ENDPOINTS, type Endpoint, RequestMetrics } from "../metrics/request-metrics.ts";
import { API_ERRORS, errorResponse, storageFaultResponse, storageFaultText } from "./errors.ts";
import { RETRY_AFTER_SECONDS, storageFaultOf } from "../faults/storage-fault.ts";
import type { StorageHealth } from "../faults/storage-health.ts";
import { unavailable } from "../dashboard/responses.ts";
import { synchronous } from "./synchronous.ts";

const OTHER = RequestMetrics.endpointIndex("other");
const DASHBOARD = RequestMetrics.endpointIndex("/dashboard");
const BY_PATH = new Map(
  ENDPOINTS.map((endpoint: Endpoint) => [endpoint as string, RequestMetrics.endpointIndex(endpoint)]),
);

const OVERRIDES = RequestMetrics.endpointIndex("/v1/overrides");
const POLICY = RequestMetrics.endpointIndex("/v1/policy");

/**
 * Which metrics label a request that a route answered counts under: the path, any dashboard path as one, any line's
 * or rule's path as its collection's (/v1/overrides, /v1/policy).
 */
function endpointOf(path: string): number {
  return (
    BY_PATH.get(path) ??
    (path.startsWith("/dashboard")
      ? DASHBOARD
      : path.startsWith("/v1/overrides/")
        ? OVERRIDES
        : path.startsWith("/v1/policy/")
          ? POLICY
          : OTHER)
  );
}

/**
 * What every request goes through around its route: timed and counted for /metrics by
 * route, and the one error path. Whatever no route takes is the 404 body; a database that
 * failed under a route (locked, unreachable, full) is noted for /healthz and answered 503
 * with Retry-After, JSON for the API and a page for the dashboard; whatever else a route
 * throws is logged with its stack and answered with the 500 body, never the stack.
 */
export function lifecycle(requests: RequestMetrics, storage: StorageHealth, logError: (message: string) => void) {
  return new Elysia()
    .derive(
      { as: "global" },
      synchronous(() => ({ startedMs: performance.now() })),
    )
    .onAfterHandle(
      { as: "global" },
      synchronous(({ path, response, startedMs }: { path: string; response: unknown; startedMs: number }) => {
        // A route that answers later (an email check waiting for DNS) is counted when it answers.
        if (response instanceof Promise)
          void response.then((r: Response) =>
            requests.record(endpointOf(path), r.status, performance.now() - startedMs),
          );
        else requests.record(endpointOf(path), (response as Response).status, performance.now() - startedMs);
      }),
    )
    .onError({ as: "global" }, ({ code, error, request, path, startedMs }) => {
      // No rest element in the parameter: minified to one letter, Elysia took it for the context handed on,
      // and every route of the binary then parsed cookies, query and headers and answered through a promise.
      if (code === "NOT_FOUND") {
        requests.count(OTHER, 404);
        return errorResponse(API_ERRORS.notFound);
      }
      const where = `${request.method} ${path}`;
      const fault = storageFaultOf(error);
      // A database that fails is said once a spell (and again when why changes): /healthz and /metrics follow the rest.
      if (fault === null)
        logError(`${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      else if (storage.noted(fault)) logError(`${where}: ${fault.message} (answered 503 while it lasts)`);
      const status = fault === null ? 500 : 503;
      // Set when the route had begun; an error before that (none is known) is counted, not timed.
      if (startedMs === undefined) requests.count(endpointOf(path), status);
      else requests.record(endpointOf(path), status, performance.now() - startedMs);
      if (fault === null) return errorResponse(API_ERRORS.internal);
      return path.startsWith("/dashboard")
        ? unavailable(storageFaultText(fault, request.method), RETRY_AFTER_SECONDS[fault.reason])
        : storageFaultResponse(fault, request.method);
    });
}
