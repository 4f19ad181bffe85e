import { type AnyElysia, Elysia, NotFoundError } from "elysia";
import type { Listening } from "../client-info.ts";
import { type AssessDeps, assessRoute } from "../routes/assess.ts";
import { type BatchDeps, batchCheck } from "../routes/batch.ts";
import { type EmailCheckDeps, emailCheck } from "../routes/email.ts";
import { type IpCheckDeps, ipCheck } from "../routes/ip.ts";
import { type OverridesDeps, overridesRoute } from "../routes/overrides.ts";
import { type PolicyDeps, policyRoute } from "../routes/policy.ts";
import { type ReportDeps, reportRoute } from "../routes/reports.ts";

/** What the keyed routes need; the client's address for admission is made here, from `client` and the server. */
export type ApiDeps = Omit<
  EmailCheckDeps & IpCheckDeps & BatchDeps & AssessDeps & ReportDeps & OverridesDeps & PolicyDeps,
  "clientAddress"
>;

/**
 * The keyed API: each route is a plugin in its own file under routes/, added here. Every
 * route admits the request itself (`admit`: authentication, rate limit, quota) before it
 * reads a parameter, so no schema or hook here may look at the query first.
 */
export function api(apiDeps: ApiDeps, listening: Listening) {
  const deps = { ...apiDeps, clientAddress: (request: Request) => apiDeps.client.address(request, listening()) };
  return withoutHead(
    new Elysia()
      .use(emailCheck(deps))
      .use(ipCheck(deps, listening))
      .use(batchCheck(deps))
      .use(assessRoute(deps, listening))
      .use(reportRoute(deps))
      .use(overridesRoute(deps))
      .use(policyRoute(deps)),
  );
}

/**
 * Elysia answers HEAD with a GET route's handler (as Bun's router would), which here would
 * spend a key's rate limit and quota on an answer nobody reads: on the API, HEAD is one
 * more method no route takes (404). The routes without a key keep HEAD.
 */
function withoutHead<App extends AnyElysia>(app: App): App {
  for (const { path } of app.routes.filter((r) => r.method === "GET")) {
    app.head(path, () => {
      throw new NotFoundError();
    });
  }
  return app;
}
