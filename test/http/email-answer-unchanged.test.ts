import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSnapshot } from "../../src/datasets/load-snapshot.ts";
import { DEFAULT_THRESHOLDS } from "../../src/ip/verdict/reputation.ts";
import { BUNDLED_DATA_DIR } from "../support/bundled-data.ts";
import { createTestApp } from "../support/test-app.ts";

// Answers recorded before explanations and evidence rules existed, on the same bundled data:
// without `explain`, every byte must stay as it was.
const RECORDED = readFileSync(join(import.meta.dir, "../fixtures/email/answers-before-explain.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.startsWith("{"));

const { snapshot } = await loadSnapshot(BUNDLED_DATA_DIR, DEFAULT_THRESHOLDS);
const { request, newKey } = await createTestApp({ snapshot, ratePerMinute: 0 });
const { secret } = await newKey();

describe("the email answer without explain", () => {
  test("covers a few thousand addresses, disposable, free and neither", () => {
    expect(RECORDED.length).toBeGreaterThan(3000);
    expect(RECORDED.filter((l) => l.includes('"is_disposable":true')).length).toBeGreaterThan(1000);
    expect(RECORDED.filter((l) => l.includes('"free_email":true')).length).toBeGreaterThan(500);
  });

  test("is byte for byte the answer recorded before explanations", async () => {
    const differing: string[] = [];
    for (let i = 0; i < RECORDED.length; i += 50) {
      const batch = RECORDED.slice(i, i + 50);
      const answers = await Promise.all(
        batch.map(async (line) => {
          const { email } = JSON.parse(line) as { email: string };
          return (await request(`/v1/check?email=${encodeURIComponent(email)}`, { key: secret })).text();
        }),
      );
      answers.forEach((answer, j) => {
        if (answer !== batch[j]) differing.push(`${batch[j]}\n  now ${answer}`);
      });
    }
    expect(differing).toEqual([]);
  });

  test.each(["explain=0", "explain=no", "explain=false", "explain=maybe"])(
    "?%s keeps the four fields",
    async (param) => {
      const body = (await (
        await request(`/v1/check?email=someone%40mailinator.com&${param}`, { key: secret })
      ).json()) as { reasons: { sources: { source: string }[] } };
      expect(Object.keys(body)).toEqual(["email", "is_disposable", "domain", "free_email"]);
    },
  );

  test.each(["explain", "explain=1", "explain=true", "explain=YES"])(
    "?%s adds reasons after the four fields",
    async (param) => {
      const body = (await (
        await request(`/v1/check?email=someone%40mailinator.com&${param}`, { key: secret })
      ).json()) as { reasons: { sources: { source: string }[] } };
      expect(Object.keys(body)).toEqual(["email", "is_disposable", "domain", "free_email", "reasons"]);
      expect(body.reasons).toMatchObject({
        rule: "listed",
        matched: "mailinator.com",
        evidence: "verified",
        confidence: "high",
      });
      expect(body.reasons.sources.map((s: { source: string }) => s.source)).toContain("bundled-disposable-domains");
    },
  );
});
