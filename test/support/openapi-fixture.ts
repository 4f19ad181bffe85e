import { join } from "node:path";

/**
 * The OpenAPI document as it was before its parts moved beside the routes (f239eec, with what
 * burners and contact added since), keys in sorted order: test/http/openapi-unchanged.test.ts
 * compares the served document with it. A
 * deliberate change of the API's description rewrites it with `bun scripts/openapi-fixture.ts`.
 */
export const OPENAPI_FIXTURE = join(import.meta.dir, "../fixtures/openapi/document.json");

/** The value with every object's keys in sorted order, arrays as they are: two documents that say the same compare equal. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}
