import { Elysia } from "elysia";
import { ENDPOINTS, type Endpoint, RequestMetrics } from "../metrics/request-metrics.ts";
import { API_ERRORS, errorResponse } from "./errors.ts";

/** Which metrics label a route counts under: its path, any dashboard path as one, else `other`. */
function endpointOf(route: string | undefined): number {
  if (route === undefined) return OTHER;
  if (route.startsWith("/dashboard")) return DASHBOARD;
  const index = ENDPOINTS.indexOf(route as Endpoint);
  return index === -1 ? OTHER : index;
}

const OTHER = RequestMetrics.endpointIndex("other");
const DASHBOARD = RequestMetrics.endpointIndex("/dashboard");

/**
 * What every request goes through around its route: timed and counted for /metrics by
 * route, and the one error path. Whatever no route takes is the 404 body; whatever a
 * route throws is logged with its stack and answered with the 500 body, never the stack.
 */
export function lifecycle(requests: RequestMetrics, logError: (message: string) => void) {
  return new Elysia()
    .derive({ as: "global" }, () => ({ startedMs: performance.now() }))
    .onAfterHandle({ as: "global" }, ({ route, response, startedMs }) => {
      requests.record(endpointOf(route), (response as Response).status, performance.now() - startedMs);
    })
    .onError({ as: "global" }, ({ code, error, request, route, ...context }) => {
      if (code === "NOT_FOUND") {
        requests.count(OTHER, 404);
        return errorResponse(API_ERRORS.notFound);
      }
      const where = `${request.method} ${new URL(request.url).pathname}`;
      logError(`${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      // Set when the route had begun; an error before that (none is known) is counted, not timed.
      const startedMs = (context as { startedMs?: number }).startedMs;
      if (startedMs === undefined) requests.count(endpointOf(route), 500);
      else requests.record(endpointOf(route), 500, performance.now() - startedMs);
      return errorResponse(API_ERRORS.internal);
    });
}
