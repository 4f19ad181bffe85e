import type { AssessmentFacts } from "./assessment-facts.ts";
import type { CompiledPolicy, PolicyOutcome } from "./compiled-policy.ts";

/** One assessment: what the answers said, what the policy made of it, and which policy that was. */
export interface Assessment extends PolicyOutcome {
  readonly facts: AssessmentFacts;
  readonly policy: string;
}

export function assess(policy: CompiledPolicy, facts: AssessmentFacts): Assessment {
  const { decision, rule, shadow } = policy.decide(facts);
  return { decision, rule, shadow, facts, policy: policy.version };
}
