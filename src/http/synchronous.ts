/**
 * A route handler or hook that Elysia runs without a promise. Elysia guesses from a
 * function's source text whether it may return one (any `return f(…)` or `=> f(…)`
 * counts, and minified code nearly always reads so) and then makes the whole request
 * async; Bun serves a promised Response at about 5 µs more CPU per request than one
 * returned at once (docs/benchmarks.md). A bound function shows Elysia no source: it is taken
 * as synchronous, and as reading nothing of the context but what every request carries
 * (`request`, `path`, `params`, derived values), so no query, header or cookie object is
 * built for it either. Only for functions that never return a promise; `test/http/synchronous.test.ts`
 * checks that the API's answers come back unpromised.
 */
export function synchronous<Fn extends (...args: never[]) => unknown>(fn: Fn): Fn {
  return fn.bind(undefined) as Fn;
}
