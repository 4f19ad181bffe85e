import { describe, expect, test } from "bun:test";
import { createTestApp } from "../support/test-app.ts";

// Elysia makes a request async when it guesses from a function's source that it may return a
// promise, and Bun serves a promised Response at a measurable cost (src/http/synchronous.ts).
describe("the API and the operator's plain routes answer without a promise", () => {
  test.each([
    ["/v1/check?email=a@gmail.com", 200],
    ["/v1/check?email=nope", 400],
    ["/v1/ip-reputation-check?ip=8.8.8.8", 200],
    ["/v1/ip-reputation-check?ip=10.0.0.1", 200],
    ["/v1/ip-reputation-check?ip=nope", 400],
    ["/healthz", 200],
    ["/openapi.json", 200],
    ["/v1/about", 200],
  ])("%s", async (path, status) => {
    const { app, newKey, deps } = await createTestApp();
    const { secret } = await newKey();
    const request = () =>
      new Request(`http://riskcheck.test${path}`, { headers: { authorization: `Bearer ${secret}` } });
    await app.handle(request()); // compiles the route
    const answer = app.fetch(request());
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(status);
    // The hooks ran on that road too: the answer was counted for /metrics under its path.
    const endpoint = path.split("?")[0];
    expect(
      [...deps.metrics.requests.requests()].filter((r) => r.endpoint === endpoint).reduce((n, r) => n + r.count, 0),
    ).toBe(2);
  });

  test("without a key too", async () => {
    const { app } = await createTestApp();
    await app.handle(new Request("http://riskcheck.test/v1/check?email=a@gmail.com"));
    const answer = app.fetch(new Request("http://riskcheck.test/v1/check?email=a@gmail.com"));
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(401);
  });
});

// Elysia's guess from a global hook's source applies to every route. A rest element in its parameter,
// minified to one letter, read as the context handed on: the binary's routes all parsed cookies, query and
// headers and answered through a promise, which these sources never showed.
test("no global hook takes the context with a rest element", async () => {
  const { app } = await createTestApp();
  const { event } = app as unknown as { event: Record<string, { fn: () => unknown }[] | undefined> };
  const hooks = Object.entries(event).flatMap(([kind, list]) => (list ?? []).map(({ fn }) => [kind, String(fn)]));
  for (const [kind, source] of hooks) {
    const parameters = source.slice(0, source.indexOf("=>") === -1 ? source.indexOf("{") : source.indexOf("=>"));
    expect(
      `${kind}: ${parameters}`,
      "a rest element in a global hook's parameter makes every route of the minified binary async",
    ).not.toContain("...");
  }
  // That check sees a rest element only, not the context handed on whole: a new global hook is looked at first.
  expect(
    hooks.map(([kind]) => kind).sort(),
    "a global hook added or gone: Elysia reads every global hook's source to guess what each route uses, and a rest " +
      "element or the whole context handed on makes every route parse cookies, query and headers and answer through " +
      "a promise in the minified binary; see that a new one names only what it reads of the context, then list it here",
  ).toEqual(["afterHandle", "error", "transform"]);
});
