import { expect, test } from "bun:test";
import { openApiJson } from "../../src/http/openapi-document.ts";
import { OPENAPI_FIXTURE, sortedKeys } from "../support/openapi-fixture.ts";

test("/openapi.json says what the committed document says: the same operations, parameters, answers and examples", async () => {
  const fixture = await Bun.file(OPENAPI_FIXTURE).json();
  expect(sortedKeys(JSON.parse(openApiJson()))).toEqual(fixture);
});
