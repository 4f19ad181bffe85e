/**
 * `bun scripts/openapi-fixture.ts`: writes the served OpenAPI document, keys sorted, as
 * test/fixtures/openapi/document.json, which test/http/openapi-unchanged.test.ts holds the
 * document to. Run it when the API's description is meant to change, and commit both.
 */
import { openApiJson } from "../src/http/openapi-document.ts";
import { OPENAPI_FIXTURE, sortedKeys } from "../test/support/openapi-fixture.ts";

await Bun.write(OPENAPI_FIXTURE, `${JSON.stringify(sortedKeys(JSON.parse(openApiJson())), null, 1)}\n`);
console.log(`${OPENAPI_FIXTURE}: written`);
