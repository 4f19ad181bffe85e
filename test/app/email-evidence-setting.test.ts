import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/app/config.ts";
import { UsageError } from "../../src/app/usage-error.ts";
import { DEFAULT_EVIDENCE_RULE } from "../../src/email/evidence-rule.ts";

describe("RISKCHECK_EMAIL_EVIDENCE", () => {
  test("defaults to the measured rule", () => {
    expect(DEFAULT_EVIDENCE_RULE).toBe("corroborated");
    expect(loadConfig({}, {}).emailEvidence).toBe("corroborated");
  });
  test.each(["any", "corroborated", "strict"])("takes %s", (rule) => {
    expect(loadConfig({}, { RISKCHECK_EMAIL_EVIDENCE: rule }).emailEvidence).toBe(rule as "any");
  });
  test("refuses anything else, naming the choices", () => {
    expect(() => loadConfig({}, { RISKCHECK_EMAIL_EVIDENCE: "two" })).toThrow(UsageError);
    expect(() => loadConfig({}, { RISKCHECK_EMAIL_EVIDENCE: "two" })).toThrow(
      'RISKCHECK_EMAIL_EVIDENCE: "two" is not one of any, corroborated, strict',
    );
  });
});
