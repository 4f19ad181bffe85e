import { bearer } from "@elysiajs/bearer";
import { Elysia } from "elysia";
import type { SnapshotHolder } from "../datasets/snapshot.ts";
import type { AdmissionDeps } from "./admission.ts";
import { API_ERRORS, errorResponse } from "./errors.ts";
import { checkEmail } from "./routes/email.ts";
import { health } from "./routes/health.ts";

export interface AppDeps extends AdmissionDeps {
  readonly snapshots: SnapshotHolder;
  readonly startedMs: number;
  /** Where failures the routes did not expect are reported; never the request's secrets. */
  readonly logError: (message: string) => void;
}

/** The whole HTTP surface, without listening: tests drive it through `app.handle`. */
export function createApp(deps: AppDeps) {
  return new Elysia()
    .use(bearer())
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") return errorResponse(API_ERRORS.notFound);
      deps.logError(`${request.method} ${new URL(request.url).pathname}: ${code} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return errorResponse(API_ERRORS.internal);
    })
    .get("/v1/check", ({ request, bearer }) => checkEmail(deps, request, bearer))
    .get("/healthz", () => health(deps.snapshots, deps.startedMs, deps.now()));
}

export type App = ReturnType<typeof createApp>;
