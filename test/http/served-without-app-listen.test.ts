import { expect, test } from "bun:test";
import { createTestApp } from "../support/test-app.ts";

/** The parts of an app that Elysia 1.4's `app.listen` reads besides its `fetch`. */
interface ListenInputs {
  readonly promisedModules: { readonly size: number };
  readonly event: { readonly start?: readonly unknown[]; readonly stop?: readonly unknown[] };
  readonly router: { readonly response: Record<string, unknown>; readonly history: readonly { method: string }[] };
  readonly config: { readonly serve?: unknown; readonly websocket?: unknown; readonly systemRouter?: boolean };
}

// What `app.listen` would do with each, which `listen` (src/http/app.ts) does not:
// promisedModules: plugins still loading (`.use(import(…))`), compiled in once they settle and the server reloaded;
// startHooks: run once serving; stopHooks: run at beforeExit; staticResponses: handlers that are a Response,
// served by Bun's router; webSocketRoutes and config.websocket: Bun.serve's websocket; config.serve: merged
// into Bun.serve's options; systemRouter on: every route handed to Bun's router.
test("the app has nothing of what app.listen would serve and listen in app.ts leaves out", async () => {
  const { app } = await createTestApp();
  const inputs = app as unknown as ListenInputs;
  expect(
    {
      promisedModules: inputs.promisedModules.size,
      startHooks: inputs.event.start?.length ?? 0,
      stopHooks: inputs.event.stop?.length ?? 0,
      staticResponses: Object.keys(inputs.router.response),
      webSocketRoutes: inputs.router.history.filter((route) => route.method === "WS").length,
      serve: inputs.config.serve,
      websocket: inputs.config.websocket,
      systemRouter: inputs.config.systemRouter,
    },
    "listen in src/http/app.ts serves the app's fetch with Bun.serve, and its comment says nothing else app.listen " +
      "does applies to this app; for this one it now does: serve it in listen too, or go back to app.listen",
  ).toEqual({
    promisedModules: 0,
    startHooks: 0,
    stopHooks: 0,
    staticResponses: [],
    webSocketRoutes: 0,
    serve: undefined,
    websocket: undefined,
    systemRouter: false,
  });
});
