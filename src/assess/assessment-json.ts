import type { Assessment } from "./assessment.ts";
import type { PolicyRule } from "./policy-rule.ts";
import type { Reason } from "./reason-codes.ts";

/**
 * The answer of POST/GET /v1/assess: the decision, the score and its reasons, the rule that
 * decided, the policy's version, the event, then the email and IP answers as the two checks
 * give them (null for a value not asked about). `explain` (the answers explained too) adds
 * `shadow`: the shadow rules that would have decided. Codes and ids are plain ASCII.
 */
export function assessmentJson(
  a: Assessment,
  emailJson: string | null,
  ipJson: string | null,
  explain: boolean,
): string {
  return `${head(a)},"email":${emailJson ?? "null"},"ip":${ipJson ?? "null"}${explain ? shadowJson(a) : ""}}`;
}

/** The decision alone, with its shadow rules, without the answers: what `scan --policy` writes beside a row's own answers. */
export function decisionJson(a: Assessment): string {
  return `${head(a)}${shadowJson(a)}}`;
}

function head(a: Assessment): string {
  return (
    `{"decision":"${a.decision}","score":${a.facts.score},"reasons":[${a.facts.reasons.map(reasonJson).join(",")}],` +
    `"rule":${a.rule === null ? "null" : ruleJson(a.rule)},"policy":"${a.policy}",` +
    `"event":${a.facts.event === null ? "null" : JSON.stringify(a.facts.event)}`
  );
}

const shadowJson = (a: Assessment) => `,"shadow":[${(a.shadow ?? []).map(ruleJson).join(",")}]`;

function reasonJson(r: Reason): string {
  return `{"code":"${r.code}","weight":${r.weight},"fact":${JSON.stringify(r.fact)}}`;
}

function ruleJson(r: PolicyRule): string {
  return `{"id":"${r.id}","decision":"${r.decision}","mode":"${r.mode}","reason":${JSON.stringify(r.reason)}}`;
}
