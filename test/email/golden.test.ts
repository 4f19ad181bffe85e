import { describe, expect, test } from "bun:test";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { isDisposable } from "../../src/email/classify.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_DATA_DIR, createTestApp } from "../support/test-app.ts";
import { GOLDEN_TABLE } from "./golden-table.ts";

// The real default data: the version `npm install` composed from the bundled sources,
// with the shipped allowlist and free-provider supplement.
const { snapshot } = await loadSnapshot(BUNDLED_DATA_DIR, DEFAULT_THRESHOLDS);
const { request, newKey } = await createTestApp({ snapshot });
const { secret } = await newKey();

describe("the golden table on the bundled data", () => {
  test("has at least 150 hand-checked addresses", () => {
    expect(GOLDEN_TABLE.length).toBeGreaterThanOrEqual(150);
  });
  test.each(GOLDEN_TABLE.map((row) => [...row]))("%s → disposable %p, free %p: %s", async (address, disposable, free) => {
    const res = await request(`/v1/check?email=${encodeURIComponent(address)}`, { key: secret });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ email: address, is_disposable: disposable, free_email: free });
  });
});

describe("the compiled sets", () => {
  test("no entry of the free list is disposable", () => {
    const email = snapshot.email;
    expect(email.free.size).toBeGreaterThan(4000);
    expect([...email.free].filter((domain) => isDisposable(email, domain))).toEqual([]);
  });
});
