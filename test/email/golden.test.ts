import { describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { isDisposable } from "../../src/email/classify.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_SOURCES, makeDataDir, runCliAsync } from "../support/processes.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { createTestApp } from "../support/test-app.ts";
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
  test.each(GOLDEN_TABLE.map((row) => [...row]))(
    "%s → disposable %p, free %p: %s",
    async (address, disposable, free) => {
      const res = await request(`/v1/check?email=${encodeURIComponent(address)}`, { key: secret });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ email: address, is_disposable: disposable, free_email: free });
    },
  );
});

describe("the compiled sets", () => {
  test("no entry of the free list is disposable", () => {
    const email = snapshot.email;
    expect(email.free.size).toBeGreaterThan(4000);
    expect([...email.free].filter((domain) => isDisposable(email, domain))).toEqual([]);
  });
});

describe("the golden table after an update adds maintained lists", async () => {
  // The real update on the bundled sources plus excerpts of mailchecker and burner-email-providers:
  // the lines where they carry free providers (mail.com's address domains, keemail.me, sohu.com …).
  // The shipped allowlist and supplement must keep those free, as after a default update.
  const dir = makeDataDir();
  for (const file of ["allowlist.txt", "free-providers.txt"])
    copyFileSync(join(BUNDLED_DATA_DIR, "email", file), join(dir, "email", file));
  const excerpt = (name: string, file: string) => ({
    name,
    url: `file://${join(import.meta.dir, "../fixtures/feeds", file)}`,
    format: "domain-list",
    feeds: "disposable",
    licence: "MIT",
  });
  writeFileSync(
    join(dir, "sources.json"),
    JSON.stringify({
      sources: [
        ...BUNDLED_SOURCES,
        excerpt("mailchecker", "mailchecker-free-providers.txt"),
        excerpt("burner-email-providers", "burner-free-providers.txt"),
      ],
    }),
  );
  const run = await runCliAsync(["update", "--data-dir", dir]);
  const updated = (await loadSnapshot(dir, DEFAULT_THRESHOLDS)).snapshot;
  const app = await createTestApp({ snapshot: updated });
  const key = (await app.newKey()).secret;

  test("the update installed a version with both lists", () => {
    expect(run.code).toBe(0);
    expect(updated.outputs["disposable-domains"].sources).toEqual(
      expect.arrayContaining(["mailchecker", "burner-email-providers"]),
    );
  });
  test.each(GOLDEN_TABLE.map((row) => [...row]))(
    "%s → disposable %p, free %p: %s",
    async (address, disposable, free) => {
      const res = await app.request(`/v1/check?email=${encodeURIComponent(address)}`, { key });
      expect(await res.json()).toMatchObject({ email: address, is_disposable: disposable, free_email: free });
    },
  );
});
